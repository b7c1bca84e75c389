// The message-level WebSocket API of server/net/http.h (pdk_ws_handler)
// with the real listener: tests/integration/ws_echo_server.c registers an
// echo subprotocol under two names, with limits small enough to reach
// (messages of 1024 bytes, 2 connections).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { decodeFrame, ErrorCode } from './paddock_client.mjs';

const SERVER = process.env.PDK_WS_ECHO_SERVER;
let proc;
let port;
let stderr = '';

before(async () => {
  assert.ok(SERVER, 'PDK_WS_ECHO_SERVER names the test server (ctest sets it)');
  proc = spawn(SERVER, [], { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stderr.on('data', (d) => { stderr += d; });
  port = await new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /port (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.on('exit', (code) => reject(new Error(`ws_echo_server exited ${code}: ${stderr}`)));
  });
});

after(async () => {
  const exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
  proc.kill('SIGTERM');
  assert.equal(await exited, 0, `ws_echo_server stops cleanly: ${stderr}`);
});

// Opens a WebSocket and collects its messages; resolves once open.
async function open(protocols, path = '/') {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, protocols);
  const c = { ws, messages: [], waiting: [] };
  c.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  ws.on('message', (data, isBinary) => {
    const m = { data, isBinary };
    const w = c.waiting.shift();
    if (w) w(m); else c.messages.push(m);
  });
  c.next = () => (c.messages.length > 0 ? Promise.resolve(c.messages.shift())
    : new Promise((resolve) => c.waiting.push(resolve)));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return c;
}

test('text and binary echo, and on_open sees the subprotocol agreed', async () => {
  const c = await open('echo.test.v1');
  assert.equal(c.ws.protocol, 'echo.test.v1');
  assert.equal((await c.next()).data.toString(), 'open echo.test.v1');
  c.ws.send('hello');
  const text = await c.next();
  assert.equal(text.isBinary, false);
  assert.equal(text.data.toString(), 'hello');
  const bytes = Buffer.from([0, 1, 2, 250, 255]);
  c.ws.send(bytes);
  const bin = await c.next();
  assert.equal(bin.isBinary, true);
  assert.deepEqual(Buffer.from(bin.data), bytes);
  c.ws.close();
  await c.closed;
});

test('the first offered subprotocol the server knows is echoed as offered', async () => {
  const c = await open(['nope.v9', 'echo.test.v2', 'echo.test.v1']);
  assert.equal(c.ws.protocol, 'echo.test.v2');
  assert.equal((await c.next()).data.toString(), 'open echo.test.v2');
  c.ws.close();
  await c.closed;
});

test('fragments arrive as one message; keyed sends go out', async () => {
  const c = await open('echo.test.v1');
  await c.next();
  c.ws.send('frag', { fin: false });
  c.ws.send('mented', { fin: true });
  assert.equal((await c.next()).data.toString(), 'fragmented');
  c.ws.send('keyed:7:state one');
  assert.equal((await c.next()).data.toString(), 'state one');
  c.ws.close();
  await c.closed;
});

test('a message over the limit closes with 1009 naming the sizes', async () => {
  const c = await open('echo.test.v1');
  await c.next();
  c.ws.send(Buffer.alloc(1025, 7));
  const { code, reason } = await c.closed;
  assert.equal(code, 1009);
  assert.match(reason, /message of (at least )?1025 bytes exceeds the limit of 1024 bytes/);
});

test('pdk_ws_close sends its status and reason', async () => {
  const c = await open('echo.test.v1');
  await c.next();
  c.ws.send('close');
  assert.deepEqual(await c.closed, { code: 4000, reason: 'asked to close' });
});

test('beyond max_connections: a handler conn gets 1013, a Paddock conn Error BUSY', async () => {
  const a = await open('echo.test.v1');
  const b = await open('echo.test.v1');
  await a.next();
  await b.next();
  const third = await open('echo.test.v1');
  const refused = await third.closed;
  assert.equal(refused.code, 1013);
  assert.match(refused.reason, /server busy: at its limit of 2 WebSocket connections/);
  const paddock = await open('paddock.v1', '/v1/ws');
  const busy = decodeFrame((await paddock.next()).data);
  assert.equal(busy.error.code, ErrorCode.BUSY);
  assert.match(busy.error.message, /server busy/);
  assert.equal((await paddock.closed).code, 1008);
  a.ws.close();
  b.ws.close();
  await a.closed;
  await b.closed;
});
