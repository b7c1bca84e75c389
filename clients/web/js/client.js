// The dashboard's connection to paddockd: Paddock's own protocol over
// WebSocket (one paddock.v1.Frame per binary message, subprotocol
// "paddock.v1", docs/protocol.md), encoded with protobufjs from the
// paddock.proto the server serves beside the page. Every request gets one
// reply by request_id; an Error reply rejects the request's promise with a
// ServerError naming the code and the server's message, and pushed frames
// (request_id 0) go to the handlers registered with onPush.

export const SUBPROTOCOL = "paddock.v1";

export class ServerError extends Error {
  constructor(codeName, message, request) {
    super(`${codeName}: ${message}`);
    this.codeName = codeName;
    this.serverMessage = message;
    this.request = request;
  }
}

// Protobufjs decodes 64-bit integers as numbers when long.js is not loaded
// (the browser); a Long from elsewhere still converts.
export function num(v) {
  if (v === null || v === undefined) return 0;
  return typeof v === "number" ? v : Number(v.toString());
}

export class PaddockClient {
  constructor(root) {
    this.root = root;
    this.Frame = root.lookupType("paddock.v1.Frame");
    this.ErrorCode = root.lookupEnum("paddock.v1.ErrorCode");
    this.nextId = 1;
    this.pending = new Map();
    this.pushHandlers = new Map();
    this.closeHandlers = [];
    this.ws = null;
    this.welcome = null;
  }

  // Loads paddock.proto from protoUrl, then connects; resolves with the
  // client once the server's Welcome has come.
  static async open(protoUrl, wsUrl, clientName) {
    const root = await protobuf.load(protoUrl);
    const client = new PaddockClient(root);
    await client.connect(wsUrl, clientName);
    return client;
  }

  connect(wsUrl, clientName) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(wsUrl, SUBPROTOCOL);
      ws.binaryType = "arraybuffer";
      this.ws = ws;
      let opened = false;
      ws.onopen = () => {
        opened = true;
        this.request("hello", { protocolVersion: 1, clientName, viewer: false })
          .then((welcome) => { this.welcome = welcome; resolve(this); }, reject);
      };
      ws.onmessage = (ev) => this.receive(ev.data);
      ws.onerror = () => {
        if (!opened) reject(new Error(`cannot open ${wsUrl} (subprotocol ${SUBPROTOCOL})`));
      };
      ws.onclose = (ev) => {
        const why = `connection closed (code ${ev.code}${ev.reason ? ": " + ev.reason : ""})`;
        for (const [, p] of this.pending) p.reject(new Error(why));
        this.pending.clear();
        for (const h of this.closeHandlers) h(why);
      };
    });
  }

  onClose(handler) { this.closeHandlers.push(handler); }

  // handler(frameBodyValue, frame) for pushed frames whose body is `kind`
  // (e.g. "stateBatch", "controlEvent", "error").
  onPush(kind, handler) {
    if (!this.pushHandlers.has(kind)) this.pushHandlers.set(kind, []);
    this.pushHandlers.get(kind).push(handler);
  }

  // Sends one request whose body is `kind` and resolves with the reply's
  // body (or, with all set, the whole reply frame). Rejects with a
  // ServerError on an Error reply.
  request(kind, body, { all = false } = {}) {
    const requestId = this.nextId++;
    const frame = this.Frame.fromObject({ requestId, [kind]: body });
    const bytes = this.Frame.encode(frame).finish();
    return new Promise((resolve, reject) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        reject(new Error(`not connected: ${kind} was not sent`));
        return;
      }
      this.pending.set(requestId, { kind, resolve, reject, all });
      this.ws.send(bytes);
    });
  }

  receive(data) {
    let frame;
    try {
      frame = this.Frame.decode(new Uint8Array(data));
    } catch (e) {
      this.dispatchPush("clientError", { message: `a frame from the server did not decode: ${e.message}` });
      return;
    }
    const kind = frame.body;
    const requestId = num(frame.requestId);
    if (requestId !== 0 && this.pending.has(requestId)) {
      const p = this.pending.get(requestId);
      // An export's reply is several frames; the dashboard asks for none.
      this.pending.delete(requestId);
      if (kind === "error") {
        const e = frame.error;
        p.reject(new ServerError(this.codeName(e.code), e.message, p.kind));
      } else {
        p.resolve(p.all ? frame : frame[kind]);
      }
      return;
    }
    this.dispatchPush(kind, frame[kind], frame);
  }

  dispatchPush(kind, value, frame) {
    const handlers = this.pushHandlers.get(kind) || this.pushHandlers.get("*") || [];
    for (const h of handlers) h(value, frame);
  }

  codeName(code) {
    return this.ErrorCode.valuesById[code] || `error ${code}`;
  }
}
