"""What both clients do with a received frame: whose it is.

A frame with a request_id is a reply to that request. A pushed frame
(request_id 0) belongs to a subscription by its subscription_id; a pushed
Error that ends a subscription names it in its message ("subscription 3
ended: ...", the server's wording for every such end); a ControlEvent
belongs to the connection.
"""
import collections
import re

from . import errors, rows

PUSHED_BATCHES = ("state_batch", "telemetry_batch", "dbw_report", "session_stats")
SUBSCRIPTION_REPLIES = ("subscribed", "telemetry_schema")
_ENDED = re.compile(r"^subscription (\d+) ended")


def ended_subscription(error):
    """The subscription id an ending Error names, or None."""
    m = _ENDED.match(error.message)
    return int(m.group(1)) if m else None


def convert(kind, body, channels):
    """A pushed body as the row its subscription yields."""
    if kind == "state":
        return rows.state_row(body)
    if kind == "telemetry":
        return rows.telemetry_rows(body, channels)
    if kind == "dbw":
        return rows.dbw_report(body)
    return rows.stats_row(body)


class Rows:
    """A subscription's bounded buffer of pushed bodies, oldest dropped when full.

    This mirrors the server's latest-wins state streams: a reader that does
    not keep up loses the oldest rows, never a reply, and `dropped` counts
    them. `ended` holds the PaddockError the server ended it with."""

    def __init__(self, size):
        self.items = collections.deque(maxlen=size)
        self.dropped = 0
        self.ended = None

    def push(self, body):
        if len(self.items) == self.items.maxlen:
            self.dropped += 1
        self.items.append(body)

    def end(self, error):
        self.ended = errors.from_frame(error)
