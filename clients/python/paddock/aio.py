"""The asyncio client: the same methods as paddock.Client, as coroutines.

    async with paddock.aio.Client("127.0.0.1", 7420, name="me") as c:
        s = await c.create_session("test")
        sub = await c.subscribe_state(s.session_id, rate_hz=10)
        async for row in sub:
            ...

It runs on asyncio streams in the caller's event loop: a reader task (no
thread) routes replies by request_id and pushed frames to their
subscription's bounded buffer, oldest dropped when not drained.
"""
import asyncio
import collections
import os

from ._pb import pb
from . import _route, errors, framing, rows, tls
from ._requests import Call, Requests


class Subscription(_route.SubscriptionBase):
    """An async iterator of rows (each wait bounded by `timeout` s, TimeoutError
    beyond); `await close()` unsubscribes. A subscription the server ends
    raises its PaddockError once its rows are read."""

    async def get(self, timeout=None):
        """The next row; TimeoutError after `timeout` s (None: the subscription's own).
        StopAsyncIteration once closed."""
        timeout = self.timeout if timeout is None else timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            row = self._next_row(StopAsyncIteration)
            if row is not None:
                return row
            left = deadline - loop.time()
            if left <= 0:
                raise self._timed_out(timeout)
            self.client._changed.clear()
            try:
                await asyncio.wait_for(self.client._changed.wait(), left)
            except asyncio.TimeoutError:
                pass

    def drain(self):
        """Every row buffered now, oldest first, without waiting."""
        return self._drain_rows()

    def __aiter__(self):
        return self

    async def __anext__(self):
        return await self.get()

    async def close(self):
        if self._closed:
            return
        self._closed = True
        self.client._subs.pop(self.subscription_id, None)
        if self._buffer.ended is None and not self.client._closed:
            try:
                await self.client.unsubscribe(self.subscription_id)
            except (errors.NotFound, errors.ConnectionClosed):
                pass

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()


class Client(Requests):
    """A connection to paddockd in an asyncio loop; `await connect()` or
    `async with` opens it. Arguments as paddock.Client's."""

    protocol_version = pb.PROTOCOL_VERSION_1  # what Hello says this client speaks

    def __init__(self, host="127.0.0.1", port=7420, name="python", viewer=False, timeout=30.0,
                 queue_size=4096, api_key=None, tls_ca=None, tls_cert=None, tls_key=None):
        self.host, self.port, self.name, self.viewer = host, port, name, viewer
        self.tls_context = tls.context(tls_ca, tls_cert, tls_key)
        self.api_key = os.environ.get("PADDOCK_API_KEY", "") if api_key is None else api_key
        self.timeout = timeout
        self.queue_size = queue_size
        self._pending = {}
        self._subs = {}
        self._events = collections.deque(maxlen=queue_size)
        self._next_id = 1
        self._closed = True
        self._reason = None
        self._task = None
        self.welcome = None

    async def connect(self):
        self._stream_reader, self._writer = await asyncio.wait_for(
            asyncio.open_connection(self.host, self.port, ssl=self.tls_context,
                                    server_hostname=self.host if self.tls_context else None),
            self.timeout)
        self._changed = asyncio.Event()
        self._reader = framing.FrameReader(1 << 20)
        self._send(self._take_id(), "hello", pb.Hello(protocol_version=self.protocol_version,
                                                      client_name=self.name, viewer=self.viewer,
                                                      api_key=self.api_key))
        frame = await asyncio.wait_for(self._first_frame(), self.timeout)
        body = frame.WhichOneof("body")
        if body == "error":
            self._writer.close()
            raise errors.from_frame(frame.error)
        if body != "welcome":
            self._writer.close()
            raise errors.ConnectionClosed(f"the server answered Hello with {body}, not Welcome")
        self.welcome = rows.to_row(frame.welcome)
        self._reader.max_frame_bytes = self.welcome.max_frame_bytes
        self._closed = False
        self._task = asyncio.get_running_loop().create_task(self._read_loop())
        return self

    async def _first_frame(self):
        while True:
            data = await self._stream_reader.read(65536)
            if not data:
                raise errors.ConnectionClosed("the server closed the connection before Welcome")
            frames = self._reader.feed(data)
            if frames:
                self._early = frames[1:]
                return pb.Frame.FromString(frames[0])

    async def close(self):
        if self._task is None:
            return
        self._reason = self._reason or "the client closed the connection"
        self._writer.close()
        try:
            await self._writer.wait_closed()
        except OSError:
            pass
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass
        self._task = None
        self._finish()

    async def __aenter__(self):
        return await self.connect()

    async def __aexit__(self, *exc):
        await self.close()

    def _close_reason(self):
        return self._reason or "the connection is closed"

    def _take_id(self):
        rid = self._next_id
        self._next_id += 1
        return rid

    def _send(self, rid, body, message):
        frame = pb.Frame(request_id=rid)
        getattr(frame, body).CopyFrom(message)
        self._writer.write(framing.delimit(frame.SerializeToString()))

    def _finish(self):
        self._closed = True
        for q in self._pending.values():
            q.put_nowait(None)
        self._changed.set()

    async def _read_loop(self):
        try:
            for raw in self._early:
                self._route(pb.Frame.FromString(raw))
            while True:
                data = await self._stream_reader.read(1 << 16)
                if not data:
                    self._reason = self._reason or "the server closed the connection"
                    break
                for raw in self._reader.feed(data):
                    self._route(pb.Frame.FromString(raw))
        except (OSError, framing.FrameTooLarge) as e:
            self._reason = self._reason or f"the connection failed: {e}"
        self._finish()

    def _route(self, frame):
        is_reply, reason = _route.route(frame, self._subs, self._events, self.queue_size)
        if is_reply:
            q = self._pending.get(frame.request_id)
            if q is not None:
                q.put_nowait(frame)
            return
        self._reason = reason or self._reason
        self._changed.set()

    async def _wait(self, rid, q):
        try:
            frame = await asyncio.wait_for(q.get(), self.timeout)
        except asyncio.TimeoutError:
            raise TimeoutError(f"no reply to request {rid} within {self.timeout} s") from None
        if frame is None:
            raise errors.ConnectionClosed(self._close_reason())
        body = frame.WhichOneof("body")
        if body == "error":
            raise errors.from_frame(frame.error)
        return getattr(frame, body)

    async def _drive(self, gen):
        rid = q = None
        reply = None
        try:
            while True:
                step = gen.send(reply)
                if isinstance(step, Call):
                    if self._closed:
                        raise errors.ConnectionClosed(self._close_reason())
                    self._pending.pop(rid, None)
                    rid, q = self._take_id(), asyncio.Queue()
                    self._pending[rid] = q
                    self._send(rid, step.body, step.message)
                    await self._writer.drain()
                reply = await self._wait(rid, q)
        except StopIteration as done:
            return done.value
        finally:
            self._pending.pop(rid, None)

    async def _drive_subscription(self, gen, timeout):
        subscribing = await self._drive(gen)
        return Subscription(self, subscribing, self._subs[subscribing.subscription_id],
                            self.timeout if timeout is None else timeout)

    async def next_event(self, timeout=None):
        """The next pushed ControlEvent or ServerDraining; TimeoutError after
        `timeout` s."""
        timeout = self.timeout if timeout is None else timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self._events:
            if self._closed:
                raise errors.ConnectionClosed(self._close_reason())
            left = deadline - loop.time()
            if left <= 0:
                raise TimeoutError(f"no ControlEvent within {timeout} s")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except asyncio.TimeoutError:
                pass
        return rows.control_event(self._events.popleft())


async def connect(host="127.0.0.1", port=7420, **kwargs):
    """An open asyncio Client."""
    return await Client(host, port, **kwargs).connect()
