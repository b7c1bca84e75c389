"""A local stand-in for the Agones SDK sidecar's REST API, as Agones
documents it (agones.dev/site/docs/guides/client-sdks/rest/): POST /ready,
/health, /allocate, /reserve and /shutdown with a JSON body; GET /gameserver;
GET /watch/gameserver, a chunked stream of one {"result": GameServer} line
per change; PUT /metadata/label and /metadata/annotation. No cluster runs
here, so the test plays the cluster's part: allocate() is what a
GameServerAllocation with labels does to the GameServer.

It records every call (method, path, monotonic time) for the test to read."""
import http.server
import json
import threading
import time


class SDK:
    def __init__(self, port, name="paddock-test-gs"):
        self.lock = threading.Condition()
        self.calls = []
        self.gs = {
            "object_meta": {"name": name, "namespace": "default", "labels": {}, "annotations": {}},
            "spec": {"health": {"disabled": False, "period_seconds": 5, "failure_threshold": 3,
                                "initial_delay_seconds": 5}},
            "status": {"state": "Scheduled", "address": "127.0.0.1",
                       "ports": [{"name": "paddock", "port": 7420}]},
        }
        self.version = 0
        sdk = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def reply(self, code, obj):
                body = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def body(self):
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                return json.loads(raw) if raw else {}

            def do_POST(self):
                sdk.record("POST", self.path)
                data = self.body()
                states = {"/ready": "Ready", "/allocate": "Allocated", "/shutdown": "Shutdown",
                          "/reserve": "Reserved"}
                if self.path == "/health":
                    self.reply(200, {})
                elif self.path in states:
                    if self.path == "/reserve" and "seconds" not in data:
                        return self.reply(400, {"error": "seconds is required"})
                    sdk.change(lambda gs: gs["status"].__setitem__("state", states[self.path]))
                    self.reply(200, {})
                else:
                    self.reply(404, {"error": f"no {self.path}"})

            def do_PUT(self):
                sdk.record("PUT", self.path)
                data = self.body()
                kind = {"/metadata/label": "labels", "/metadata/annotation": "annotations"}.get(self.path)
                if not kind or "key" not in data:
                    return self.reply(400, {"error": "key and value are required"})
                sdk.change(lambda gs: gs["object_meta"][kind].__setitem__(
                    "agones.dev/sdk-" + data["key"], data.get("value", "")))
                self.reply(200, {})

            def do_GET(self):
                sdk.record("GET", self.path)
                if self.path == "/gameserver":
                    with sdk.lock:
                        return self.reply(200, sdk.gs)
                if self.path != "/watch/gameserver":
                    return self.reply(404, {"error": f"no {self.path}"})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                seen = -1
                try:
                    while not sdk.closing:
                        with sdk.lock:
                            sdk.lock.wait_for(lambda: sdk.version != seen or sdk.closing, 0.5)
                            if sdk.closing:
                                break
                            if sdk.version == seen:
                                continue
                            seen = sdk.version
                            line = (json.dumps({"result": sdk.gs}) + "\n").encode()
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.closing = False
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def record(self, method, path):
        with self.lock:
            self.calls.append((method, path, time.monotonic()))
            self.lock.notify_all()

    def change(self, fn):
        with self.lock:
            fn(self.gs)
            self.version += 1
            self.lock.notify_all()

    def allocate(self, labels):
        """What a GameServerAllocation does: labels set, state Allocated."""
        def apply(gs):
            gs["object_meta"]["labels"].update(labels)
            gs["status"]["state"] = "Allocated"
        self.change(apply)

    def wait_call(self, path, timeout_s, after=0.0):
        """The time of the first call to path after `after`, or None."""
        deadline = time.monotonic() + timeout_s
        with self.lock:
            while True:
                for _, p, t in self.calls:
                    if p == path and t > after:
                        return t
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.lock.wait(left)

    def count(self, path, since=0.0, until=float("inf")):
        with self.lock:
            return sum(1 for _, p, t in self.calls if p == path and since < t <= until)

    def close(self):
        with self.lock:
            self.closing = True
            self.lock.notify_all()
        self.httpd.shutdown()
        self.httpd.server_close()
