// paddockd's HTTP and WebSocket listener (--http), end to end with the real
// server on loopback: the static files and their refusals, /healthz, and
// Paddock's own protocol over WebSocket with the same replies, errors,
// roles and output limits as over TCP.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { decodeFrame, ErrorCode, GEAR_DRIVE, PADDOCKD, SOURCE_DIR, startServer, TcpClient, WsClient } from './paddock_client.mjs';

// One raw HTTP request; the path goes out exactly as given (no URL folding).
function get(port, path, { method = 'GET', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

// A request too large for the server: the reply's status, or the error the
// connection ended with when it was dropped without one.
function oversized(port, bytes) {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(bytes)}\r\n\r\n`);
    });
    let got = '';
    sock.on('data', (d) => { got += d; });
    sock.on('error', () => {});
    sock.on('close', () => resolve(got));
  });
}

describe('HTTP', () => {
  let srv;
  const secret = 'not for the web';
  before(async () => {
    // A web root of our own, with a secret beside it and a symlink out.
    const base = join(process.env.TMPDIR ?? '/tmp', `pdk-webroot-${process.pid}`);
    const rootDir = join(base, 'root');
    mkdirSync(join(rootDir, 'sub'), { recursive: true });
    writeFileSync(join(rootDir, 'index.html'), '<!doctype html><title>dash</title>');
    writeFileSync(join(rootDir, 'sub', 'app.js'), 'export const x = 1;\n');
    writeFileSync(join(base, 'secret.txt'), secret);
    symlinkSync(join(base, 'secret.txt'), join(rootDir, 'leak.txt'));
    srv = await startServer(['--web-root', rootDir]);
  });
  after(async () => {
    const { code } = await srv.stop();
    assert.equal(code, 0, 'paddockd stops cleanly');
  });

  test('static files with their types, / is index.html, HEAD has no body', async () => {
    const index = await get(srv.http, '/');
    assert.equal(index.status, 200);
    assert.match(index.headers['content-type'], /^text\/html/);
    assert.match(index.body, /<title>dash<\/title>/);
    const js = await get(srv.http, '/sub/app.js');
    assert.equal(js.status, 200);
    assert.match(js.headers['content-type'], /^text\/javascript/);
    assert.equal(js.body, 'export const x = 1;\n');
    const head = await get(srv.http, '/sub/app.js', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
  });

  test('unknown paths are 404 naming the path', async () => {
    const r = await get(srv.http, '/no/such/file.js');
    assert.equal(r.status, 404);
    assert.match(r.body, /no file at \/no\/such\/file\.js/);
  });

  test('other methods are 405 with Allow', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const r = await get(srv.http, '/index.html', { method });
      assert.equal(r.status, 405, method);
      assert.equal(r.headers.allow, 'GET, HEAD');
      assert.match(r.body, /takes GET or HEAD only/);
    }
  });

  test('nothing outside the web root: .., encoded .., absolute paths, symlinks', async () => {
    for (const path of ['/../secret.txt', '/sub/../../secret.txt', '/%2e%2e/secret.txt',
      '/..%2fsecret.txt', '//etc/passwd', '/../../../../etc/passwd']) {
      const r = await get(srv.http, path);
      assert.ok(r.status === 404 || r.status === 403, `${path}: ${r.status}`);
      assert.ok(!r.body.includes(secret) && !r.body.includes('root:'), path);
    }
    const link = await get(srv.http, '/leak.txt');
    assert.equal(link.status, 403);
    assert.match(link.body, /outside the web root/);
  });

  test('an oversized request is refused, and the server serves on', async () => {
    const reply = await oversized(srv.http, 16 * 1024);
    assert.ok(!reply.startsWith('HTTP/1.1 200'), reply.slice(0, 40));
    assert.match(srv.stderr(), /Ran out of header data space/);
    assert.equal((await get(srv.http, '/healthz')).status, 200);
  });

  test('/healthz: version, uptime, sessions as JSON', async () => {
    const r = await get(srv.http, '/healthz');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    const h = JSON.parse(r.body);
    assert.equal(h.status, 'ok');
    assert.match(h.version, /^\d+\.\d+\.\d+$/);
    assert.ok(h.uptime_s >= 0);
    assert.equal(h.sessions, 0);
  });

  test('/v1/ws without a WebSocket upgrade is 426 naming the subprotocol', async () => {
    const r = await get(srv.http, '/v1/ws');
    assert.equal(r.status, 426);
    assert.match(r.body, /paddock\.v1/);
  });
});

describe('Paddock over WebSocket', () => {
  let srv;
  let url;
  before(async () => {
    srv = await startServer();
    url = `ws://127.0.0.1:${srv.http}/v1/ws`;
  });
  after(async () => {
    const { code, stdout } = await srv.stop();
    assert.equal(code, 0, 'paddockd stops cleanly');
    assert.match(stdout, /stopped cleanly/);
  });

  test('Hello, a session, a car, its state, and a DBW command that moves it', async () => {
    const c = await WsClient.open(url);
    assert.equal(c.ws.protocol, 'paddock.v1');
    const welcome = await c.hello();
    assert.equal(welcome.body, 'welcome', JSON.stringify(welcome));
    assert.equal(welcome.welcome.tickRateHz, 120);
    const created = await c.request({ sessionCreate: { name: 'ws drive' } });
    assert.equal(created.body, 'sessionCreated', JSON.stringify(created));
    const sessionId = created.sessionCreated.session.sessionId;
    const spawned = await c.request({ vehicleSpawn: { sessionId, preset: 'ref1_sedan', gear: GEAR_DRIVE } });
    assert.equal(spawned.body, 'vehicleSpawned', JSON.stringify(spawned));
    const vehicleId = spawned.vehicleSpawned.vehicleId;
    const sub = await c.request({ subscribe: { sessionId } });
    assert.equal(sub.body, 'subscribed', JSON.stringify(sub));
    const first = await c.waitFor((f) => f.body === 'stateBatch' && f.stateBatch.vehicles.length === 1);
    assert.equal(first.stateBatch.vehicles[0].vehicleId, vehicleId);
    const start = first.stateBatch.vehicles[0];
    const ok = await c.request({ dbwCommand: { sessionId, vehicleId, throttlePct: 60, gear: GEAR_DRIVE } });
    assert.equal(ok.body, 'ok', JSON.stringify(ok));
    const moving = await c.waitFor((f) => f.body === 'stateBatch' &&
      f.stateBatch.vehicles[0].speedMps > 2.0, 15000);
    const v = moving.stateBatch.vehicles[0];
    assert.ok(Math.hypot(v.xM - start.xM, v.yM - start.yM) > 0.5, 'the car moved');
    await c.close();
  });

  test('a viewer is refused commands as over TCP', async () => {
    const c = await WsClient.open(url);
    await c.hello(true);
    const r = await c.request({ sessionCreate: { name: 'viewer' } });
    assert.equal(r.body, 'error');
    assert.equal(r.error.code, ErrorCode.PROTOCOL);
    assert.match(r.error.message, /viewer/);
    await c.close();
  });

  // The same bad input over TCP and over WebSocket gets the same Error.
  async function errorBoth(send) {
    const out = [];
    for (const open of [() => TcpClient.open(srv.tcp), () => WsClient.open(url)]) {
      const c = await open();
      await c.hello();
      const error = await send(c);
      out.push({ error, closed: c.closed });
    }
    return out;
  }

  test('a session that does not exist: the same Error, and the conn stays', async () => {
    const [tcp, ws] = await errorBoth((c) => c.request({ subscribe: { sessionId: 987654 } }));
    assert.equal(tcp.error.error.code, ErrorCode.NOT_FOUND);
    assert.deepEqual(ws.error.error, tcp.error.error);
  });

  test('a malformed Frame: the same Error, then close', async () => {
    const [tcp, ws] = await errorBoth((c) => {
      c.sendBytes(Buffer.from([0xff, 0xff, 0xff, 0x01, 0x02]));
      return c.waitFor((f) => f.body === 'error');
    });
    assert.equal(tcp.error.error.code, ErrorCode.PROTOCOL);
    assert.deepEqual(ws.error.error, tcp.error.error);
    await tcp.closed;
    const { code } = await ws.closed;
    assert.equal(code, 1008);
  });

  test('an oversized message: the same Error as an oversized frame, then close', async () => {
    const big = Buffer.alloc(1024 * 1024 + 1, 0x41);
    const [tcp, ws] = await errorBoth((c) => {
      c.sendBytes(big);
      return c.waitFor((f) => f.body === 'error');
    });
    assert.equal(tcp.error.error.code, ErrorCode.FRAME_TOO_LARGE);
    assert.equal(ws.error.error.code, ErrorCode.FRAME_TOO_LARGE);
    assert.match(ws.error.error.message, /exceeds the limit of 1048576 bytes/);
    await tcp.closed;
    assert.equal((await ws.closed).code, 1008);
  });

  // The refusal above comes while the client is still sending: the server
  // must read on until the client's close (RFC 6455 section 7.1.1), or
  // closing with the rest unread resets the connection and can take the
  // Error frame with it. A raw client sends half of an oversized message,
  // takes the Error and the close frame, then the other half, a piece at a
  // time, and its own close: the connection then ends cleanly, not with a
  // reset.
  test('refusing an oversized message, the server reads on to the close', async () => {
    const total = 1024 * 1024 + 1;
    const sock = net.connect(srv.http, '127.0.0.1');
    await new Promise((resolve, reject) => { sock.once('connect', resolve); sock.once('error', reject); });
    let failed = null;
    sock.on('error', (e) => { failed = e.code; });
    const ended = new Promise((resolve) => sock.on('close', resolve));
    let got = Buffer.alloc(0);
    const waitFor = (pred) => new Promise((resolve) => {
      const look = () => { const v = pred(got); if (v) { sock.off('data', onData); resolve(v); } };
      const onData = (d) => { got = Buffer.concat([got, d]); look(); };
      sock.on('data', onData);
      look();
    });
    sock.write('GET /v1/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n' +
      'Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
      'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: paddock.v1\r\n\r\n');
    const head = await waitFor((b) => { const i = b.indexOf('\r\n\r\n'); return i < 0 ? null : i + 4; });
    assert.match(got.subarray(0, head).toString(), /^HTTP\/1\.1 101/);
    got = got.subarray(head);
    // Client frames are masked; a zero key leaves the payload as it is.
    const frame = (opcode, len) => {
      const h = Buffer.alloc(14);
      h[0] = 0x80 | opcode;
      h[1] = 0x80 | 127;
      h.writeBigUInt64BE(BigInt(len), 2);
      return h; // then the four zero bytes of the key
    };
    const half = Math.floor(total / 2);
    sock.write(frame(2, total));
    sock.write(Buffer.alloc(half, 0x41));
    // The server's frames, unmasked: the Error (binary), then the close.
    const frames = (b) => {
      const out = [];
      for (let at = 0; at + 2 <= b.length;) {
        let len = b[at + 1] & 0x7f, hdr = 2;
        if (len === 126) { if (at + 4 > b.length) break; len = b.readUInt16BE(at + 2); hdr = 4; }
        if (at + hdr + len > b.length) break;
        out.push({ opcode: b[at] & 0x0f, body: b.subarray(at + hdr, at + hdr + len) });
        at += hdr + len;
      }
      return out;
    };
    const seen = await waitFor((b) => { const f = frames(b); return f.some((x) => x.opcode === 8) ? f : null; });
    assert.equal(seen[0].opcode, 2);
    assert.equal(decodeFrame(seen[0].body).error.code, ErrorCode.FRAME_TOO_LARGE);
    assert.equal(seen[1].body.readUInt16BE(0), 1008);
    for (let left = total - half; left > 0; left -= 16384) {
      sock.write(Buffer.alloc(Math.min(left, 16384), 0x41));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const close = Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8]);
    sock.end(close);
    await ended;
    assert.equal(failed, null, 'the server reset the connection');
  });

  test('a text message on the Paddock endpoint is refused by name', async () => {
    const c = await WsClient.open(url);
    await c.hello();
    c.ws.send('{"hello":{}}');
    const e = await c.waitFor((f) => f.body === 'error');
    assert.equal(e.error.code, ErrorCode.PROTOCOL);
    assert.match(e.error.message, /a text message of 12 bytes on the paddock\.v1 WebSocket/);
    assert.equal((await c.closed).code, 1008);
  });

  test('no subprotocol, or paddock.v1 at another path, is refused', async () => {
    const bare = new WebSocket(url);
    const closed = await new Promise((resolve) => {
      bare.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
      bare.on('error', () => {});
    });
    assert.equal(closed.code, 1002);
    assert.match(closed.reason, /no subprotocol/);
    const wrong = new WebSocket(`ws://127.0.0.1:${srv.http}/elsewhere`, 'paddock.v1');
    const failed = await new Promise((resolve) => {
      wrong.on('open', () => resolve('opened'));
      wrong.on('error', (e) => resolve(e.message));
    });
    assert.notEqual(failed, 'opened');
    // The server's log names why (its stderr may trail the socket's close).
    for (let i = 0; i < 50 && !/refusing a paddock\.v1 WebSocket at "\/elsewhere"/.test(srv.stderr()); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(srv.stderr(), /refusing a paddock\.v1 WebSocket at "\/elsewhere": it is served at \/v1\/ws/);
  });

  test('a slow reader keeps a bounded queue and others keep their state', async (t) => {
    const health = async () => JSON.parse((await get(srv.http, '/healthz')).body);
    const owner = await WsClient.open(url);
    await owner.hello();
    const created = await owner.request({ sessionCreate: { name: 'slow reader' } });
    const sessionId = created.sessionCreated.session.sessionId;
    for (let i = 0; i < 8; i++) {
      const s = await owner.request({ vehicleSpawn: { sessionId, preset: 'ref1_sedan', xM: i * 10 } });
      assert.equal(s.body, 'vehicleSpawned', JSON.stringify(s));
    }
    const slow = await WsClient.open(url);
    await slow.hello();
    // Every field of every car, on several subscriptions: far more than the
    // socket buffers take while the reader is stopped.
    for (let i = 0; i < 8; i++) {
      const sub = await slow.request({ subscribe: { sessionId, fields: 7 } });
      assert.equal(sub.body, 'subscribed', JSON.stringify(sub));
    }
    slow.ws.pause();
    const fast = await WsClient.open(url);
    await fast.hello();
    await fast.request({ subscribe: { sessionId } });
    let fastBatches = 0;
    const fastTicks = [];
    fast.waiters.push((f) => {
      if (f.body === 'stateBatch') {
        fastBatches++;
        fastTicks.push(f.stateBatch.tick);
      }
      return false;
    });
    const before = await health();
    let maxQueued = 0;
    let dropped = 0;
    for (let i = 0; i < 25; i++) {
      await new Promise((r) => setTimeout(r, 200));
      const h = await health();
      maxQueued = Math.max(maxQueued, h.queued_bytes_max);
      dropped = h.state_dropped - before.state_dropped;
    }
    t.diagnostic(`slow reader: largest queue ${maxQueued} bytes, ${dropped} state frames replaced; ` +
      `fast reader: ${fastBatches} batches in 5 s`);
    // Latest wins: once the socket is full, at most one frame per
    // subscription waits, so the queue stays far below the soft limit.
    assert.ok(dropped > 0, 'the slow reader\'s socket filled and state frames were replaced');
    assert.ok(maxQueued > 0, 'frames queued for the slow reader');
    assert.ok(maxQueued < 256 * 1024, `queued ${maxQueued} bytes`);
    // The fast reader got its 120 Hz all along (5 s; allow a loaded machine).
    assert.ok(fastBatches > 300, `fast reader got ${fastBatches} batches`);
    for (let i = 1; i < fastTicks.length; i++) assert.ok(fastTicks[i] > fastTicks[i - 1]);
    slow.ws.resume();
    await fast.close();
    await slow.close();
    await owner.close();
  });
});

// Issue 28's slots and memory over WebSocket: the Hello timeout, the frame
// timeout and the partial-frame budget hold here as over TCP
// (tests/integration/test_conns_integration.c has the figures).
describe('slots and memory over WebSocket', () => {
  let srv;
  let url;
  before(async () => {
    srv = await startServer(['--hello-timeout', '1', '--frame-timeout', '1', '--max-partial-mb', '1']);
    url = `ws://127.0.0.1:${srv.http}/v1/ws`;
  });
  after(async () => {
    const { code } = await srv.stop();
    assert.equal(code, 0, 'paddockd stops cleanly');
  });

  // A message begun and never finished: a fragment of n bytes, not final.
  function fragment(c, n) {
    c.ws.send(Buffer.alloc(n, 0x08), { binary: true, fin: false });
  }

  test('a WebSocket that never says Hello is told and closed', async () => {
    const c = await WsClient.open(url);
    const e = await c.waitFor((f) => f.body === 'error', 5000);
    assert.equal(e.error.code, ErrorCode.TIMEOUT);
    assert.match(e.error.message, /no Hello within 1 s of connecting \(--hello-timeout\)/);
    assert.equal((await c.closed).code, 1008);
  });

  test('a message left unfinished is cut at the frame timeout', async () => {
    const c = await WsClient.open(url);
    await c.hello();
    await new Promise((r) => setTimeout(r, 1200)); // past the Hello timeout: said in time
    fragment(c, 10);
    const e = await c.waitFor((f) => f.body === 'error', 5000);
    assert.equal(e.error.code, ErrorCode.TIMEOUT);
    assert.match(e.error.message, /\(10 bytes received\) was not whole 1 s after its first bytes came \(--frame-timeout\)/);
    assert.equal((await c.closed).code, 1008);
  });

  test('partial messages past --max-partial-mb are refused BUSY, others answered', async () => {
    const a = await WsClient.open(url);
    const b = await WsClient.open(url);
    const ok = await WsClient.open(url);
    await a.hello();
    await b.hello();
    await ok.hello();
    fragment(a, 600 * 1024);
    await new Promise((r) => setTimeout(r, 200));
    fragment(b, 600 * 1024);
    const e = await b.waitFor((f) => f.body === 'error', 5000);
    assert.equal(e.error.code, ErrorCode.BUSY);
    assert.match(e.error.message, /server busy: partial frames of all connections hold \d+ bytes of the server's limit of 1048576 bytes for them \(--max-partial-mb\)/);
    await b.closed;
    // The one holding the budget is cut at its frame timeout, and the budget is free again.
    const late = await a.waitFor((f) => f.body === 'error', 5000);
    assert.equal(late.error.code, ErrorCode.TIMEOUT);
    const health = JSON.parse((await get(srv.http, '/healthz')).body);
    assert.equal(health.partial_frame_bytes, 0);
    const reply = await ok.request({ sessionList: {} });
    assert.equal(reply.body, 'sessionListReply');
    await ok.close();
  });
});

describe('--http refusals at start-up', () => {
  // paddockd with these options, to its exit: status and stderr.
  function run(args) {
    const dir = mkdtempSync(join(tmpdir(), 'pdk-web-'));
    const r = spawnSync(PADDOCKD, ['serve', '--listen', '127.0.0.1:0', '--db', join(dir, 'paddock.db'),
      '--presets', join(SOURCE_DIR, 'presets'), '--migrations', join(SOURCE_DIR, 'migrations'), ...args],
    { encoding: 'utf8', timeout: 30000 });
    return { status: r.status, stderr: r.stderr };
  }

  test('an address in use', async () => {
    const srv = await startServer();
    try {
      const r = run(['--http', `127.0.0.1:${srv.http}`]);
      assert.equal(r.status, 1);
      assert.match(r.stderr, new RegExp(`cannot serve HTTP on 127\\.0\\.0\\.1:${srv.http}: listen on 127\\.0\\.0\\.1:${srv.http}: Address already in use`));
    } finally {
      assert.equal((await srv.stop()).code, 0);
    }
  });

  test('an address that does not parse, a missing web root, --web-root alone', () => {
    let r = run(['--http', '127.0.0.1:99999']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /cannot serve HTTP on 127\.0\.0\.1:99999: .*port "99999" is not a number/);
    r = run(['--http', '127.0.0.1:0', '--web-root', '/nonexistent/web']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /web root "\/nonexistent\/web": No such file or directory/);
    r = run(['--web-root', SOURCE_DIR]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--web-root needs --http HOST:PORT/);
  });
});

// With --auth the WebSocket listener asks for the same keys as TCP: the
// dashboard's Hello (no key) is refused UNAUTHENTICATED and closed, a key's
// identity is what the server decides, and another's session is out of
// reach (docs/security.md "Identities and roles").
describe('API keys over WebSocket', () => {
  let srv;
  let url;
  const keys = { alice: 'k-ws-alice-6d1f0a', bob: 'k-ws-bob-93c5e2' };
  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pdk-auth-'));
    const file = join(dir, 'keys.json');
    writeFileSync(file, JSON.stringify({
      keys: Object.entries(keys).map(([name, key]) => ({
        name, role: 'driver', sha256: createHash('sha256').update(key).digest('hex'),
      })),
    }));
    srv = await startServer(['--auth', file]);
    url = `ws://127.0.0.1:${srv.http}/v1/ws`;
  });
  after(async () => {
    assert.equal((await srv.stop()).code, 0);
  });

  test('a Hello without a key is refused and closed', async () => {
    const c = await WsClient.open(url);
    const r = await c.hello();
    assert.equal(r.body, 'error');
    assert.equal(r.error.code, ErrorCode.UNAUTHENTICATED);
    assert.match(r.error.message, /must carry an api_key/);
    await c.closed;
  });

  test('a key decides the identity; another identity is refused', async () => {
    const alice = await WsClient.open(url);
    const w = await alice.request({ hello: { protocolVersion: 1, clientName: 'tests/web', apiKey: keys.alice } });
    assert.equal(w.body, 'welcome');
    assert.equal(w.welcome.identity, 'alice');
    const created = await alice.request({ sessionCreate: { name: 'ws-alice' } });
    const sessionId = created.sessionCreated.session.sessionId;
    const bob = await WsClient.open(url);
    await bob.request({ hello: { protocolVersion: 1, clientName: 'tests/web', apiKey: keys.bob } });
    const r = await bob.request({ sessionClose: { sessionId } });
    assert.equal(r.body, 'error');
    assert.equal(r.error.code, ErrorCode.PERMISSION_DENIED);
    assert.match(r.error.message, /identity 'bob' \(driver\) may not send session_close .*it belongs to 'alice'/);
    await bob.close();
    await alice.close();
  });
});

// Issue 28's budgets per tick over WebSocket: a WebSocket connection past
// --max-inputs-per-tick or --max-spawns-per-tick is held as a TCP one is
// (libwebsockets' receive flow control), so every request is still
// answered, in order, and another session keeps 120 Hz
// (tests/integration/test_flood_integration.c does the same over TCP).
describe('budgets per tick over WebSocket', () => {
  let srv;
  let url;
  before(async () => {
    srv = await startServer(['--max-spawns-per-tick', '1']);
    url = `ws://127.0.0.1:${srv.http}/v1/ws`;
  });
  after(async () => {
    const { code, stdout } = await srv.stop();
    assert.equal(code, 0, 'paddockd stops cleanly');
    assert.match(stdout, /stopped cleanly/);
  });

  // Sends every body at once without waiting, then resolves with the
  // replies and the request ids in the order their replies arrived.
  async function pipeline(c, bodies) {
    const order = [];
    const receive = c.receive.bind(c);
    c.receive = (f) => {
      if (f.requestId !== 0) order.push(f.requestId);
      receive(f);
    };
    const first = c.nextId;
    const replies = await Promise.all(bodies.map((b) => c.request(b)));
    c.receive = receive;
    return { replies, order, first };
  }

  async function tickOf(c, sessionId) {
    const list = await c.request({ sessionList: {} });
    return Number(list.sessionListReply.sessions.find((s) => Number(s.sessionId) === Number(sessionId)).tick);
  }

  test('pipelined DbwCommands past the budget: all Ok, in order, another session at 120 Hz', async (t) => {
    const watcher = await TcpClient.open(srv.tcp);
    await watcher.hello();
    const w = await watcher.request({ sessionCreate: { name: 'watched' } });
    const watched = w.sessionCreated.session.sessionId;
    await watcher.request({ vehicleSpawn: { sessionId: watched, preset: 'ref1_sedan' } });
    const c = await WsClient.open(url);
    await c.hello();
    const created = await c.request({ sessionCreate: { name: 'ws inputs' } });
    const sessionId = created.sessionCreated.session.sessionId;
    const spawned = await c.request({ vehicleSpawn: { sessionId, preset: 'ref1_sedan' } });
    const vehicleId = spawned.vehicleSpawned.vehicleId;
    await new Promise((r) => setTimeout(r, 300));
    const n = 6000; // far past the default budget of 64 a tick, and the session's queue of 4096
    const tick0 = await tickOf(watcher, watched);
    const t0 = performance.now();
    const bodies = Array.from({ length: n }, (_, i) => ({ dbwCommand: { sessionId, vehicleId, throttlePct: i % 50 } }));
    const { replies, order, first } = await pipeline(c, bodies);
    const took = (performance.now() - t0) / 1000;
    const rate = (await tickOf(watcher, watched) - tick0) / ((performance.now() - t0) / 1000);
    t.diagnostic(`ws input flood: ${n} DbwCommands answered in ${took.toFixed(2)} s; the watched session ran ${rate.toFixed(1)} ticks/s`);
    const notOk = replies.filter((r) => r.body !== 'ok');
    assert.equal(notOk.length, 0, JSON.stringify(notOk[0]));
    assert.deepEqual(order, Array.from({ length: n }, (_, i) => first + i));
    assert.ok(rate > 100, `the watched session ran ${rate.toFixed(1)} ticks/s`);
    await c.close();
    await watcher.close();
  });

  test('pipelined spawns at --max-spawns-per-tick 1 are held a tick each, answered in order', async (t) => {
    const c = await WsClient.open(url);
    await c.hello();
    const created = await c.request({ sessionCreate: { name: 'ws spawns', worldOverrides: 'maxVehicles=256' } });
    const sessionId = created.sessionCreated.session.sessionId;
    const t0 = performance.now();
    const bodies = Array.from({ length: 120 }, (_, i) => ({
      vehicleSpawn: { sessionId, preset: 'midsize_sedan', xM: 8 * (i % 16), yM: 8 * Math.floor(i / 16) },
    }));
    const { replies, order, first } = await pipeline(c, bodies);
    const took = (performance.now() - t0) / 1000;
    t.diagnostic(`ws spawns: 120 at one a tick answered in ${took.toFixed(2)} s`);
    assert.equal(replies.filter((r) => r.body !== 'vehicleSpawned').length, 0);
    assert.deepEqual(order, Array.from({ length: 120 }, (_, i) => first + i));
    // One a tick: not much under a second (unheld, they all go in at once).
    assert.ok(took > 0.8, `120 spawns at one a tick took ${took.toFixed(3)} s`);
    const list = await c.request({ sessionList: {} });
    assert.equal(list.body, 'sessionListReply');
    await c.close();
  });
});
