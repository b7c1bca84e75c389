"""The synchronous client: one blocking call per request, a reader thread.

    with paddock.Client("127.0.0.1", 7420, name="me") as c:
        s = c.create_session("test")
        v = c.spawn(s.session_id, "ref1_sedan").vehicle_id
        for row in c.subscribe_state(s.session_id, rate_hz=10):
            ...

The reader thread reads every frame. A reply goes to the call waiting on
its request_id; a pushed frame goes to its subscription's bounded buffer
(oldest dropped when the caller does not drain it). Calls may come from
several threads at once.
"""
import collections
import os
import queue
import socket
import threading

from ._pb import pb
from . import _route, errors, framing, rows, tls
from ._requests import Call, Requests

_CLOSED = object()


class Subscription(_route.SubscriptionBase):
    """A stream of rows: iterate it (each wait bounded by `timeout` s, TimeoutError
    beyond), or call get(). close() unsubscribes; the iteration then stops. A
    subscription the server ends raises its PaddockError once its rows are read."""

    def get(self, timeout=None):
        """The next row; TimeoutError after `timeout` s (None: the subscription's own),
        StopIteration once closed."""
        timeout = self.timeout if timeout is None else timeout
        with self.client._cond:
            while True:
                row = self._next_row(StopIteration)
                if row is not None:
                    return row
                if not self.client._cond.wait(timeout):
                    raise self._timed_out(timeout)

    def drain(self):
        """Every row buffered now, oldest first, without waiting."""
        with self.client._cond:
            return self._drain_rows()

    def __iter__(self):
        return self

    def __next__(self):
        return self.get()

    def close(self):
        """Unsubscribes (unless the server already ended it or the connection is gone)."""
        if self._closed:
            return
        self._closed = True
        with self.client._cond:
            self.client._subs.pop(self.subscription_id, None)
            self.client._cond.notify_all()
            alive = self._buffer.ended is None and not self.client._closed
        if alive:
            try:
                self.client.unsubscribe(self.subscription_id)
            except (errors.NotFound, errors.ConnectionClosed):
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Client(Requests):
    """A connection to paddockd. `viewer=True` says Hello as a viewer (watch only).
    `api_key` is the key a paddockd started with --auth knows this client by
    (None: $PADDOCK_API_KEY, else none); `welcome.identity` and `welcome.role`
    say who the server took it for (docs/security.md). `tls_ca` connects over
    TLS, verifying the server's certificate against that CA file; `tls_cert`
    and `tls_key` are the client certificate a server with --tls-client-ca
    asks for (None: $PADDOCK_TLS_CA, $PADDOCK_TLS_CERT, $PADDOCK_TLS_KEY).
    TLS failures raise ssl.SSLError with OpenSSL's reason.
    `timeout` bounds every call in seconds; `queue_size` is each subscription's
    buffer in frames. `tap`, when given, is called with every Frame received
    (in the reader thread, before it is routed): a debugging and test hook."""

    protocol_version = pb.PROTOCOL_VERSION_1  # what Hello says this client speaks

    def __init__(self, host="127.0.0.1", port=7420, name="python", viewer=False, timeout=30.0,
                 queue_size=4096, tap=None, api_key=None, tls_ca=None, tls_cert=None,
                 tls_key=None):
        self.timeout = timeout
        tls_context = tls.context(tls_ca, tls_cert, tls_key)
        self.tap = tap
        self.queue_size = queue_size
        self._cond = threading.Condition()
        self._send_lock = threading.Lock()
        self._pending = {}
        self._subs = {}
        self._events = collections.deque(maxlen=queue_size)
        self._next_id = 1
        self._closed = False
        self._reason = None
        self._sock = socket.create_connection((host, port), timeout=timeout)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls_context is not None:
            try:
                self._sock = tls_context.wrap_socket(self._sock, server_hostname=host)
            except BaseException:
                self._sock.close()
                raise
        self._reader = framing.FrameReader(1 << 20)
        try:
            self.welcome = rows.to_row(self._hello(name, viewer, api_key))
        except BaseException:
            self._sock.close()
            raise
        self._reader.max_frame_bytes = self.welcome.max_frame_bytes
        self._sock.settimeout(None)
        self._thread = threading.Thread(target=self._read_loop, name="paddock-reader",
                                         daemon=True)
        self._thread.start()

    # ---- connection ----

    def _hello(self, name, viewer, api_key):
        if api_key is None:
            api_key = os.environ.get("PADDOCK_API_KEY", "")
        hello = pb.Hello(protocol_version=self.protocol_version, client_name=name, viewer=viewer,
                         api_key=api_key)
        self._send(self._take_id(), "hello", hello)
        while True:
            data = self._sock.recv(65536)
            if not data:
                raise errors.ConnectionClosed("the server closed the connection before Welcome")
            frames = self._reader.feed(data)
            if frames:
                self._early = frames[1:]
                frame = pb.Frame.FromString(frames[0])
                if self.tap is not None:
                    self.tap(frame)
                if frame.WhichOneof("body") == "error":
                    raise errors.from_frame(frame.error)
                if frame.WhichOneof("body") != "welcome":
                    raise errors.ConnectionClosed(f"the server answered Hello with "
                                                  f"{frame.WhichOneof('body')}, not Welcome")
                return frame.welcome

    def close(self):
        """Closes the connection; waiting calls get ConnectionClosed."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._reason = self._reason or "the client closed the connection"
            self._cond.notify_all()
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._thread.join(timeout=5)
        self._sock.close()
        self._fail_pending()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _close_reason(self):
        return self._reason or "the connection is closed"

    def _take_id(self):
        with self._cond:
            rid = self._next_id
            self._next_id += 1
            return rid

    def _send(self, rid, body, message):
        frame = pb.Frame(request_id=rid)
        getattr(frame, body).CopyFrom(message)
        data = framing.delimit(frame.SerializeToString())
        with self._send_lock:
            self._sock.sendall(data)

    def _fail_pending(self):
        with self._cond:
            pending = list(self._pending.values())
            self._pending.clear()
        for q in pending:
            q.put(_CLOSED)

    # ---- the reader thread ----

    def _read_loop(self):
        try:
            for raw in self._early:
                self._route(pb.Frame.FromString(raw))
            while True:
                data = self._sock.recv(1 << 16)
                if not data:
                    self._reason = self._reason or "the server closed the connection"
                    break
                for raw in self._reader.feed(data):
                    self._route(pb.Frame.FromString(raw))
        except (OSError, framing.FrameTooLarge) as e:
            self._reason = self._reason or f"the connection failed: {e}"
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._fail_pending()

    def _route(self, frame):
        if self.tap is not None:
            self.tap(frame)
        with self._cond:
            is_reply, reason = _route.route(frame, self._subs, self._events, self.queue_size)
            if is_reply:
                q = self._pending.get(frame.request_id)
            else:
                self._reason = reason or self._reason
                self._cond.notify_all()
        if is_reply and q is not None:
            q.put(frame)

    # ---- driving the requests ----

    def _call(self, body, message):
        rid = self._take_id()
        q = queue.Queue()
        # Registered under the lock that close() takes, so a call either
        # sees the connection closed or is failed by it, never left waiting.
        with self._cond:
            if self._closed:
                raise errors.ConnectionClosed(self._close_reason())
            self._pending[rid] = q
        try:
            self._send(rid, body, message)
        except OSError as e:
            with self._cond:
                self._pending.pop(rid, None)
            raise errors.ConnectionClosed(f"sending {body} failed: {e}") from e
        return rid, q

    def _wait(self, rid, q):
        try:
            frame = q.get(timeout=self.timeout)
        except queue.Empty:
            raise TimeoutError(f"no reply to request {rid} within {self.timeout} s") from None
        if frame is _CLOSED:
            raise errors.ConnectionClosed(self._close_reason())
        body = frame.WhichOneof("body")
        if body == "error":
            raise errors.from_frame(frame.error)
        return getattr(frame, body)

    def _drive(self, gen):
        rid = q = None
        reply = None
        try:
            while True:
                step = gen.send(reply)
                if isinstance(step, Call):
                    with self._cond:
                        self._pending.pop(rid, None)
                    rid, q = self._call(step.body, step.message)
                reply = self._wait(rid, q)
        except StopIteration as done:
            return done.value
        finally:
            if rid is not None:
                with self._cond:
                    self._pending.pop(rid, None)

    def _drive_subscription(self, gen, timeout):
        subscribing = self._drive(gen)
        with self._cond:
            buffer = self._subs[subscribing.subscription_id]
        return Subscription(self, subscribing, buffer, self.timeout if timeout is None else timeout)

    def next_event(self, timeout=None):
        """The next pushed ControlEvent (a lease change on a vehicle this
        connection leases) or ServerDraining (the server is stopping);
        TimeoutError after `timeout` s."""
        timeout = self.timeout if timeout is None else timeout
        with self._cond:
            if not self._cond.wait_for(lambda: self._events or self._closed, timeout):
                raise TimeoutError(f"no ControlEvent within {timeout} s")
            if not self._events:
                raise errors.ConnectionClosed(self._close_reason())
            return rows.control_event(self._events.popleft())
