// Test helpers for the Node tests of tests/web: start the real paddockd on
// free loopback ports, and talk Paddock's own protocol to it over WebSocket
// (one Frame per binary message) or over TCP (varint-delimited Frames), with
// the Frame type loaded by protobufjs from proto/paddock/v1/paddock.proto.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import WebSocket from 'ws';

export const SOURCE_DIR = process.env.PDK_SOURCE_DIR ?? new URL('../..', import.meta.url).pathname;
export const PADDOCKD = process.env.PDK_PADDOCKD ?? join(SOURCE_DIR, 'build/bin/paddockd');

const root = protobuf.loadSync(join(SOURCE_DIR, 'proto/paddock/v1/paddock.proto'));
export const Frame = root.lookupType('paddock.v1.Frame');
export const ErrorCode = root.lookupEnum('paddock.v1.ErrorCode').values;
export const GEAR_DRIVE = root.lookupEnum('paddock.v1.Gear').values.GEAR_DRIVE;

// GET of path on 127.0.0.1:port: the status, headers and body as text.
export function httpGet(port, path) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    }).on('error', reject);
  });
}

export function encodeFrame(obj) {
  return Frame.encode(Frame.fromObject(obj)).finish();
}

export function decodeFrame(bytes) {
  return Frame.toObject(Frame.decode(bytes), { oneofs: true, longs: Number, defaults: true });
}

// Starts `paddockd serve` with TCP and HTTP on port 0 and resolves once both
// ports are printed. extraArgs go after the defaults.
export async function startServer(extraArgs = []) {
  const dir = mkdtempSync(join(tmpdir(), 'pdk-web-'));
  const args = ['serve', '--listen', '127.0.0.1:0', '--http', '127.0.0.1:0',
    '--db', join(dir, 'paddock.db'), '--presets', join(SOURCE_DIR, 'presets'),
    '--migrations', join(SOURCE_DIR, 'migrations'), ...extraArgs];
  const proc = spawn(PADDOCKD, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const ports = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`paddockd did not start: ${out}${err}`)), 15000);
    proc.stdout.on('data', (d) => {
      out += d;
      const tcp = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
      const http = /https? on 127\.0\.0\.1:(\d+)/.exec(out);
      if (tcp && http) {
        clearTimeout(timer);
        resolve({ tcp: Number(tcp[1]), http: Number(http[1]) });
      }
    });
    exited.then(({ code }) => reject(new Error(`paddockd exited ${code}: ${out}${err}`)));
  });
  return {
    ...ports,
    dir,
    proc,
    exited, // resolves with {code, signal} once paddockd has exited
    stderr: () => err,
    stdout: () => out,
    // SIGTERM, then the exit status and output: a clean stop is code 0.
    async stop() {
      proc.kill('SIGTERM');
      const status = await exited;
      rmSync(dir, { recursive: true, force: true });
      return { ...status, stdout: out, stderr: err };
    },
  };
}

// The conversation every transport shares: requests matched to replies by
// request_id, pushed frames kept in order for waitFor.
class Conversation {
  constructor() {
    this.nextId = 1;
    this.pending = new Map();
    this.pushed = [];
    this.waiters = [];
  }

  receive(frame) {
    const p = this.pending.get(frame.requestId);
    if (frame.requestId !== 0 && p) {
      this.pending.delete(frame.requestId);
      p(frame);
      return;
    }
    this.pushed.push(frame);
    this.waiters = this.waiters.filter((w) => !w(frame));
  }

  request(body) {
    const requestId = this.nextId++;
    const reply = new Promise((resolve) => this.pending.set(requestId, resolve));
    this.sendBytes(encodeFrame({ requestId, ...body }));
    return reply;
  }

  // Resolves with the first pushed frame (already received or to come) for
  // which pred is true; rejects after timeoutMs.
  waitFor(pred, timeoutMs = 10000) {
    const seen = this.pushed.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for a pushed frame')), timeoutMs);
      this.waiters.push((f) => {
        if (!pred(f)) return false;
        clearTimeout(timer);
        resolve(f);
        return true;
      });
    });
  }

  hello(viewer = false) {
    return this.request({ hello: { protocolVersion: 1, clientName: 'tests/web', viewer } });
  }
}

export class WsClient extends Conversation {
  // url like ws://127.0.0.1:PORT/v1/ws; protocols and options (for wss://:
  // ca, cert, key) as for new WebSocket.
  static async open(url, protocols = 'paddock.v1', options = {}) {
    const c = new WsClient();
    c.ws = new WebSocket(url, protocols, options);
    c.ws.binaryType = 'nodebuffer';
    c.closed = new Promise((resolve) => c.ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    c.ws.on('message', (data, isBinary) => {
      if (!isBinary) throw new Error(`the server sent a text message: ${data}`);
      c.receive(decodeFrame(data));
    });
    await new Promise((resolve, reject) => {
      c.ws.once('open', resolve);
      c.ws.once('error', reject);
    });
    return c;
  }

  sendBytes(bytes) {
    this.ws.send(bytes, { binary: true });
  }

  close() {
    this.ws.close();
    return this.closed;
  }
}

export class TcpClient extends Conversation {
  static async open(port) {
    const c = new TcpClient();
    c.sock = net.connect(port, '127.0.0.1');
    c.buf = Buffer.alloc(0);
    c.closed = new Promise((resolve) => c.sock.on('close', resolve));
    c.sock.on('data', (d) => {
      c.buf = Buffer.concat([c.buf, d]);
      for (;;) {
        const reader = protobuf.Reader.create(c.buf);
        let len;
        try {
          len = reader.uint32();
        } catch {
          return; // the prefix is not whole yet
        }
        if (c.buf.length < reader.pos + len) return;
        const body = c.buf.subarray(reader.pos, reader.pos + len);
        c.buf = c.buf.subarray(reader.pos + len);
        c.receive(decodeFrame(body));
      }
    });
    await new Promise((resolve, reject) => {
      c.sock.once('connect', resolve);
      c.sock.once('error', reject);
    });
    return c;
  }

  sendBytes(bytes) {
    const w = protobuf.Writer.create();
    w.uint32(bytes.length);
    this.sock.write(Buffer.concat([w.finish(), bytes]));
  }

  close() {
    this.sock.end();
    return this.closed;
  }
}
