"""paddock: a Python client of the Paddock simulation server.

paddock.Client is the synchronous client, paddock.aio.Client the asyncio
one; paddock.DbwKit builds drive-by-wire kit messages with their rolling
counters and CRC-8; paddock.ProxyView draws the state stream's vehicles
smoothly (paddock.proxyview); paddock.errors holds one exception class per ErrorCode;
paddock.pb is the generated protobuf module of the wire contract.
"""
from ._pb import pb
from . import errors, rows
from .client import Client, Subscription
from .dbw import DbwKit, crc8_j1850
from .errors import PaddockError, ConnectionClosed
from .proxyview import ProxyView
from .recordings import csv_to_dataframe
from .rows import contact_events

__all__ = ["pb", "errors", "rows", "Client", "Subscription", "DbwKit", "crc8_j1850",
           "PaddockError", "ConnectionClosed", "csv_to_dataframe", "ProxyView", "contact_events"]
