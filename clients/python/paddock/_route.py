"""What both clients do with a received frame: whose it is.

A frame with a request_id is a reply to that request. A pushed frame
(request_id 0) belongs to a subscription by its subscription_id; a pushed
Error that ends a subscription names it in its message ("subscription 3
ended: ...", the server's wording for every such end); a ControlEvent
and a ServerDraining (the server is stopping) belong to the connection.
"""
import collections
import re

from . import errors, rows

PUSHED_BATCHES = ("state_batch", "telemetry_batch", "dbw_report", "session_stats",
                  "contact_events")
SUBSCRIPTION_REPLIES = ("subscribed", "telemetry_schema")
_ENDED = re.compile(r"^subscription (\d+) ended")


def ended_subscription(error):
    """The subscription id an ending Error names, or None."""
    m = _ENDED.match(error.message)
    return int(m.group(1)) if m else None


def route(frame, subs, events, queue_size):
    """Files a received frame where it belongs; returns (is_reply, reason).

    A reply (request_id set) is the caller's to hand to its waiter
    (is_reply True); one that opens a subscription first gets the
    subscription's buffer in subs. A pushed batch goes to its
    subscription's buffer, a pushed Error that ends a subscription to that
    buffer, a ControlEvent or a ServerDraining to events. A pushed Error that ends no
    subscription ends the connection: reason is its text."""
    body = frame.WhichOneof("body")
    if frame.request_id:
        if body in SUBSCRIPTION_REPLIES:
            subs[getattr(frame, body).subscription_id] = Rows(queue_size)
        return True, None
    if body in PUSHED_BATCHES:
        msg = getattr(frame, body)
        buffer = subs.get(msg.subscription_id)
        if buffer is not None:
            buffer.push(msg)
    elif body == "error":
        sub_id = ended_subscription(frame.error)
        if sub_id is not None and sub_id in subs:
            subs[sub_id].end(frame.error)
        else:
            return False, str(errors.from_frame(frame.error))
    elif body in ("control_event", "server_draining"):
        events.append(getattr(frame, body))
    return False, None


def convert(kind, body, channels):
    """A pushed body as the row its subscription yields."""
    if kind == "state":
        return rows.state_row(body)
    if kind == "telemetry":
        return rows.telemetry_rows(body, channels)
    if kind == "dbw":
        return rows.dbw_report(body)
    if kind == "contacts":
        return rows.to_row(body)
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


class SubscriptionBase:
    """What a subscription is in both clients: its ids, rate, channels, the
    reply that opened it and its buffer. The clients add how to wait."""

    def __init__(self, client, subscribing, buffer, timeout):
        self.client = client
        self.kind = subscribing.kind
        self.subscription_id = subscribing.subscription_id
        self.rate_hz = subscribing.rate_hz
        self.channels = subscribing.channels
        self.reply = rows.to_row(subscribing.reply)
        self.timeout = timeout
        self._buffer = buffer
        self._closed = False

    @property
    def dropped(self):
        """Rows lost because the buffer was full (the caller did not keep up)."""
        return self._buffer.dropped

    def _next_row(self, stop):
        """The next buffered row, None when there is none yet. Raises stop once
        closed, the server's error once it ended the subscription, and
        ConnectionClosed once the connection is gone."""
        if self._buffer.items:
            return convert(self.kind, self._buffer.items.popleft(), self.channels)
        if self._closed:
            raise stop
        if self._buffer.ended is not None:
            raise self._buffer.ended
        if self.client._closed:
            raise errors.ConnectionClosed(self.client._close_reason())
        return None

    def _timed_out(self, timeout):
        return TimeoutError(f"no {self.kind} frame on subscription "
                            f"{self.subscription_id} within {timeout} s")

    def _drain_rows(self):
        bodies = list(self._buffer.items)
        self._buffer.items.clear()
        return [convert(self.kind, b, self.channels) for b in bodies]
