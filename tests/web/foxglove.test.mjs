// The Foxglove WebSocket server end to end: the real paddockd on loopback,
// a session made with the real paddock CLI over TCP, and
// @foxglove/ws-protocol's FoxgloveClient over `ws` with each subprotocol.
// Messages are decoded with protobufjs from the FileDescriptorSets the
// advertise messages carry, never from the .proto files.
//
//   PADDOCKD=... PADDOCK=... PDK_SOURCE_DIR=... node --test foxglove.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import WebSocket from "ws";
import wsProtocol from "@foxglove/ws-protocol";

const require = createRequire(import.meta.url);
const protobuf = require("protobufjs");
require("protobufjs/ext/descriptor");
const { FoxgloveClient } = wsProtocol;

const PADDOCKD = process.env.PADDOCKD;
const PADDOCK = process.env.PADDOCK;
const SOURCE = process.env.PDK_SOURCE_DIR;
assert.ok(PADDOCKD && PADDOCK && SOURCE, "set PADDOCKD, PADDOCK and PDK_SOURCE_DIR");

const NS_PER_S = 1_000_000_000n;
const WAIT_MS = 30_000; // a bound on each wait, never a pass condition

// paddockd on free loopback ports: the TCP port for the CLI, the HTTP port
// for WebSocket clients, both read from its first lines.
async function startServer() {
  const dir = mkdtempSync(path.join(tmpdir(), "pdk-foxglove-"));
  const proc = spawn(PADDOCKD, [
    "serve", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0",
    "--db", path.join(dir, "paddock.db"),
    "--presets", path.join(SOURCE, "presets"),
    "--migrations", path.join(SOURCE, "migrations"),
    // A fast session would pause after an hour of sim time, a few wall
    // seconds here; the test's own length bounds it instead.
    "--max-fast-ticks", "1000000000000",
  ], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const ports = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`paddockd did not start:\n${out}`)), WAIT_MS);
    const look = (chunk) => {
      out += chunk;
      const tcp = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
      const http = /http on 127\.0\.0\.1:(\d+)/.exec(out);
      if (tcp && http) {
        clearTimeout(timer);
        resolve({ tcp: Number(tcp[1]), http: Number(http[1]) });
      }
    };
    proc.stdout.on("data", look);
    proc.stderr.on("data", look);
    proc.on("exit", (code) => reject(new Error(`paddockd exited ${code}:\n${out}`)));
  });
  // Keep draining its output so a chatty server never blocks on a full pipe;
  // its last lines say why, should it not stop cleanly.
  const keep = (chunk) => { out = (out + chunk).slice(-65536); };
  proc.stdout.on("data", keep);
  proc.stderr.on("data", keep);
  return {
    ...ports,
    cli: (...args) =>
      execFileSync(PADDOCK, ["--server", `127.0.0.1:${ports.tcp}`, ...args], {
        encoding: "utf8",
      }).trim(),
    // Stops it and checks that it stopped cleanly (exit 0: under the
    // sanitizers, no leak and no error either).
    stop: async () => {
      const exited = new Promise((resolve) => proc.on("exit", (code) => resolve(code)));
      proc.kill("SIGTERM");
      const code = await exited;
      rmSync(dir, { recursive: true, force: true });
      assert.equal(code, 0, `paddockd did not stop cleanly:\n${out}`);
    },
  };
}

// Resolves once pred() holds, checked on every event of the client.
function until(events, pred, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      events.off("tick", check);
      reject(new Error(`timed out waiting for ${what}`));
    }, WAIT_MS);
    const check = () => {
      const v = pred();
      if (v) {
        clearTimeout(timer);
        events.off("tick", check);
        resolve(v);
      }
    };
    events.on("tick", check);
    check();
  });
}

// A FoxgloveClient that records what it hears: serverInfo, channels (with a
// decoder built from each channel's advertised schema), status messages,
// decoded messages per subscription and time messages.
async function connect(port, subprotocol) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`, [subprotocol]);
  const client = new FoxgloveClient({ ws });
  const { EventEmitter } = await import("node:events");
  const events = new EventEmitter();
  events.setMaxListeners(100);
  const c = {
    ws, client, events, serverInfos: [], channels: new Map(), statuses: [], times: [],
    received: new Map(), types: new Map(),
  };
  const note = () => events.emit("tick");
  client.on("serverInfo", (info) => { c.serverInfos.push(info); note(); });
  client.on("status", (s) => { c.statuses.push(s); note(); });
  client.on("time", (t) => { c.times.push(t.timestamp); note(); });
  client.on("advertise", (list) => {
    for (const ch of list) {
      const root = protobuf.Root.fromDescriptor(Buffer.from(ch.schema, "base64"));
      c.channels.set(ch.id, { ...ch, type: root.lookupType(ch.schemaName), root });
    }
    note();
  });
  client.on("unadvertise", (ids) => { for (const id of ids) c.channels.delete(id); note(); });
  client.on("message", (m) => {
    const type = c.types.get(m.subscriptionId);
    const bytes = new Uint8Array(m.data.buffer, m.data.byteOffset, m.data.byteLength);
    const list = c.received.get(m.subscriptionId) ?? [];
    list.push({ t: m.timestamp, msg: type.decode(bytes) });
    c.received.set(m.subscriptionId, list);
    note();
  });
  c.topic = (topic) => [...c.channels.values()].find((ch) => ch.topic === topic);
  c.subscribe = (ch) => {
    const id = client.subscribe(ch.id);
    c.types.set(id, ch.type);
    return id;
  };
  c.waitStatus = (re) =>
    until(events, () => c.statuses.find((s) => re.test(s.message)), `a status matching ${re}`);
  c.close = () => new Promise((resolve) => { ws.on("close", resolve); client.close(); });
  await until(events, () => c.serverInfos.length > 0, "serverInfo");
  return c;
}

function span(list) {
  return list.length < 2 ? 0n : list[list.length - 1].t - list[0].t;
}

for (const subprotocol of ["foxglove.websocket.v1", "foxglove.sdk.v1"]) {
  test(`Foxglove client over ${subprotocol}: channels, 10 s of data, time, publish`, async () => {
    const srv = await startServer();
    try {
      // A fast session runs sim time as fast as the CPU allows: 10 s of it
      // take a fraction of that on the wall.
      const S = srv.cli("create", "--timing", "fast", "--no-record");
      const V = srv.cli("spawn", "--session", S, "--preset", "midsize_sedan", "--gear", "D");
      const c = await connect(srv.http, subprotocol);
      assert.equal(c.ws.protocol, subprotocol, "the server echoes the subprotocol offered");
      const info = c.serverInfos[0];
      assert.match(info.name, /^paddockd /);
      assert.deepEqual([...info.capabilities].sort(), ["clientPublish", "time"]);
      assert.deepEqual(info.supportedEncodings, ["protobuf"]);
      assert.equal(typeof info.sessionId, "string");

      const base = `/session/${S}/vehicle/${V}`;
      const want = {
        state: [`${base}/state`, "paddock.v1.VehicleState"],
        telemetry: [`${base}/telemetry`, "paddock.v1.TelemetrySample"],
        dbw: [`${base}/dbw_report`, "paddock.v1.DbwReport"],
        tf: [`/session/${S}/tf`, "foxglove.FrameTransform"],
        scene: [`/session/${S}/scene`, "foxglove.SceneUpdate"],
      };
      await until(c.events, () => Object.values(want).every(([t]) => c.topic(t)),
        "every channel of the session and vehicle");
      const subs = {};
      for (const [key, [topic, schemaName]] of Object.entries(want)) {
        const ch = c.topic(topic);
        assert.equal(ch.encoding, "protobuf");
        assert.equal(ch.schemaName, schemaName);
        assert.equal(ch.schemaEncoding, "protobuf");
        subs[key] = c.subscribe(ch);
      }
      const got = (key) => c.received.get(subs[key]) ?? [];
      const tenSeconds = 10n * NS_PER_S;
      // Time messages are latest-wins and thinned out on the way (the
      // first that arrives may be a later tick's than the first state), so
      // their 10 s are waited for too, not taken from the state's.
      await until(c.events, () => span(got("state")) >= tenSeconds &&
        span(got("telemetry")) >= tenSeconds && got("dbw").length > 0 &&
        got("scene").length > 0 && got("tf").length > 0 && c.times.length >= 2 &&
        c.times.at(-1) - c.times[0] >= tenSeconds, "10 s of state, telemetry and time");

      // State: the vehicle's, in order of sim time, the receive time its tick's.
      for (const { t, msg } of got("state")) {
        assert.equal(String(msg.vehicleId), V);
        assert.ok(Number.isFinite(msg.xM) && Number.isFinite(msg.speedMps));
        assert.equal(msg.wheels.length, 4);
        assert.ok(t > 0n);
      }
      const stateTimes = got("state").map((r) => r.t);
      assert.deepEqual(stateTimes, [...stateTimes].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      // Telemetry: named values of that vehicle, the tick matching the time.
      const sample = got("telemetry").at(-1).msg;
      assert.equal(String(sample.vehicleId), V);
      const names = sample.values.map((v) => v.name);
      for (const n of ["Speed", "YawRate", "Throttle", "EngineRPM", "TyreLoad_FL"])
        assert.ok(names.includes(n), `telemetry has ${n}`);
      assert.equal(sample.values.find((v) => v.name === "Speed").unit, "m/s");
      assert.equal(got("telemetry").at(-1).t, BigInt(sample.tick) * NS_PER_S / 120n);
      // Transforms: world -> body -> each wheel, ISO 8855 frames.
      const children = new Set(got("tf").map((r) => r.msg.childFrameId));
      for (const w of ["FL", "FR", "RL", "RR"])
        assert.ok(children.has(`s${S}/v${V}/wheel_${w}`), `a transform of wheel ${w}`);
      const body = got("tf").find((r) => r.msg.childFrameId === `s${S}/v${V}/body`).msg;
      assert.equal(body.parentFrameId, `s${S}/world`);
      const q = body.rotation;
      assert.ok(Math.abs(q.x ** 2 + q.y ** 2 + q.z ** 2 + q.w ** 2 - 1) < 1e-9, "a unit quaternion");
      // Scene: the body's box and four wheel cylinders, locked to their frames.
      const scene = got("scene").at(-1).msg;
      const bodyEntity = scene.entities.find((e) => e.frameId === `s${S}/v${V}/body`);
      assert.ok(bodyEntity && bodyEntity.frameLocked && bodyEntity.cubes.length === 1);
      assert.ok(bodyEntity.cubes[0].size.x > 3, "a sedan's body is longer than 3 m");
      assert.equal(scene.entities.filter((e) => e.cylinders.length === 1).length, 4);
      // DBW reports of that vehicle.
      assert.equal(String(got("dbw")[0].msg.vehicleId), V);
      // Time follows sim time and advances. Time messages are latest-wins,
      // so a fast session's are thinned out on the way; their span is not.
      assert.ok(c.times.length >= 2);
      assert.ok(c.times.at(-1) - c.times[0] >= tenSeconds);
      for (let i = 1; i < c.times.length; i++) assert.ok(c.times[i] >= c.times[i - 1]);

      // Publish a throttle command; the car speeds up.
      const speedBefore = got("state").at(-1).msg.speedMps;
      const pubId = c.client.advertise({
        topic: `${base}/dbw_command`, encoding: "protobuf", schemaName: "paddock.v1.DbwCommand",
      });
      const DbwCommand = c.topic(want.state[0]).root.lookupType("paddock.v1.DbwCommand");
      c.client.sendMessage(pubId, DbwCommand.encode({ throttlePct: 80 }).finish());
      await until(c.events, () => got("state").at(-1).msg.speedMps > speedBefore + 5,
        "the car to gain 5 m/s under throttle");
      assert.deepEqual(c.statuses.filter((s) => s.level === 2), [], "no error status");
      await c.close();
    } finally {
      await srv.stop();
    }
  });
}

test("Foxglove client: every bad input gets an error status naming it", async () => {
  const srv = await startServer();
  try {
    const S = srv.cli("create", "--timing", "fast", "--no-record");
    const V = srv.cli("spawn", "--session", S, "--preset", "midsize_sedan", "--gear", "D");
    const c = await connect(srv.http, "foxglove.websocket.v1");
    const base = `/session/${S}/vehicle/${V}`;
    await until(c.events, () => c.topic(`${base}/state`), "the state channel");

    c.client.subscribe(999999);
    await c.waitStatus(/channel 999999 is not advertised/);
    c.ws.send("{not json");
    await c.waitStatus(/^not JSON: /);
    c.ws.send(JSON.stringify({ op: "getParameters", parameterNames: [] }));
    await c.waitStatus(/op "getParameters" is not supported/);
    c.ws.send(JSON.stringify({ subscriptions: [] }));
    await c.waitStatus(/needs an "op" string/);
    // A message on a channel the client never advertised.
    const raw = new Uint8Array([0x01, 0x39, 0x30, 0, 0, 1, 2, 3]);
    c.ws.send(raw);
    await c.waitStatus(/message on channel 12345, which you have not advertised/);
    c.ws.send(new Uint8Array([0x07, 0, 0, 0, 0]));
    await c.waitStatus(/opcode 0x07/);
    // Wrong schema, wrong encoding, a topic that names no vehicle.
    c.client.advertise({ topic: `${base}/dbw_command`, encoding: "protobuf", schemaName: "foo.Bar" });
    await c.waitStatus(/schemaName "foo\.Bar"; paddockd takes paddock\.v1\.DbwCommand/);
    c.client.advertise({ topic: `${base}/dbw_command`, encoding: "json", schemaName: "paddock.v1.DbwCommand" });
    await c.waitStatus(/encoding "json"; paddockd takes "protobuf" only/);
    c.client.advertise({ topic: "/cmd", encoding: "protobuf", schemaName: "paddock.v1.DbwCommand" });
    await c.waitStatus(/topic "\/cmd"; a command's topic is \/session/);
    // Bytes that are not a DbwCommand.
    const bad = c.client.advertise({
      topic: `${base}/dbw_command`, encoding: "protobuf", schemaName: "paddock.v1.DbwCommand",
    });
    c.client.sendMessage(bad, new Uint8Array([0xff, 0xff, 0xff]));
    await c.waitStatus(/is not a paddock\.v1\.DbwCommand/);
    // A vehicle that is not there: the server's own refusal, passed on.
    const ghost = c.client.advertise({
      topic: `/session/${S}/vehicle/4242/dbw_command`, encoding: "protobuf",
      schemaName: "paddock.v1.DbwCommand",
    });
    const DbwCommand = c.topic(`${base}/state`).root.lookupType("paddock.v1.DbwCommand");
    c.client.sendMessage(ghost, DbwCommand.encode({ throttlePct: 10 }).finish());
    await c.waitStatus(/^publish on \/session\/\d+\/vehicle\/4242\/dbw_command: /);
    // The kit's own messages go the DbwMessage request's way, its checks too.
    const kit = c.client.advertise({
      topic: `${base}/dbw_message`, encoding: "protobuf", schemaName: "paddock.v1.DbwMessage",
    });
    const DbwMessage = c.topic(`${base}/state`).root.lookupType("paddock.v1.DbwMessage");
    c.client.sendMessage(kit, DbwMessage.encode({}).finish());
    await c.waitStatus(/^publish on .*\/dbw_message: .*carries no message/);
    // A second client is not in control while the first holds the lease.
    const pub = c.client.advertise({
      topic: `${base}/dbw_command`, encoding: "protobuf", schemaName: "paddock.v1.DbwCommand",
    });
    c.client.sendMessage(pub, DbwCommand.encode({ throttlePct: 10 }).finish());
    const other = await connect(srv.http, "foxglove.sdk.v1");
    await until(other.events, () => other.topic(`${base}/state`), "the state channel");
    const pub2 = other.client.advertise({
      topic: `${base}/dbw_command`, encoding: "protobuf", schemaName: "paddock.v1.DbwCommand",
    });
    other.client.sendMessage(pub2, DbwCommand.encode({ throttlePct: 90 }).finish());
    const busy = await other.waitStatus(/^publish on .*dbw_command: .*(held|holds)/);
    assert.equal(busy.level, 2);
    // The server still serves both after all that.
    const sub = other.subscribe(other.topic(`${base}/state`));
    await until(other.events, () => (other.received.get(sub) ?? []).length > 0, "state");
    await other.close();
    await c.close();
  } finally {
    await srv.stop();
  }
});

test("Foxglove channels follow sessions and vehicles; a reset starts a new sessionId", async () => {
  const srv = await startServer();
  try {
    const S = srv.cli("create", "--timing", "fast", "--no-record");
    const V = srv.cli("spawn", "--session", S, "--preset", "midsize_sedan");
    const c = await connect(srv.http, "foxglove.websocket.v1");
    const base = `/session/${S}/vehicle/${V}`;
    await until(c.events, () => c.topic(`${base}/state`), "the vehicle's channels");
    const tf = c.subscribe(c.topic(`/session/${S}/tf`));
    const state = c.subscribe(c.topic(`${base}/state`));
    const scene = c.subscribe(c.topic(`/session/${S}/scene`));
    const bodies = () => {
      const list = c.received.get(scene) ?? [];
      return list.length === 0 ? -1 :
        list.at(-1).msg.entities.filter((e) => e.frameId.endsWith("/body")).length;
    };
    await until(c.events, () => (c.received.get(tf) ?? []).length > 0 && c.times.length > 0,
      "transforms and the clock");
    const stateIds = new Set([c.topic(`${base}/state`).id, c.topic(`${base}/telemetry`).id,
      c.topic(`${base}/dbw_report`).id]);

    // A second vehicle gets its own channels.
    const V2 = srv.cli("spawn", "--session", S, "--preset", "kart", "--x", "10");
    await until(c.events, () => c.topic(`/session/${S}/vehicle/${V2}/telemetry`), "V2's channels");
    // The scene is drawn again with both cars.
    await until(c.events, () => bodies() === 2, "a scene with two bodies");

    // A reset removes every vehicle: their channels go, and the timeline
    // jumped, so serverInfo comes again with a new sessionId.
    srv.cli("control", S, "reset");
    await until(c.events, () => [...stateIds].every((id) => !c.channels.has(id)) &&
      !c.topic(`/session/${S}/vehicle/${V2}/state`), "the vehicles' channels to go");
    await until(c.events, () => c.serverInfos.length >= 2, "serverInfo again");
    await until(c.events, () => bodies() === 0, "a scene without cars");
    assert.notEqual(c.serverInfos.at(-1).sessionId, c.serverInfos[0].sessionId);
    // The session's own channels stay; the subscription of a channel that
    // went ends quietly, with no error status.
    assert.ok(c.topic(`/session/${S}/tf`) && c.topic(`/session/${S}/scene`));
    assert.deepEqual(c.statuses.filter((s) => s.level === 2), []);
    const before = (c.received.get(state) ?? []).length;

    // A closed session takes all its channels with it.
    srv.cli("close", "--session", S);
    await until(c.events, () => [...c.channels.values()].every((ch) =>
      !ch.topic.startsWith(`/session/${S}/`)), "the session's channels to go");
    assert.equal((c.received.get(state) ?? []).length, before, "no state after the vehicle went");
    await c.close();
  } finally {
    await srv.stop();
  }
});

test("a Foxglove client that stops reading costs bounded memory", async () => {
  const srv = await startServer();
  try {
    const S = srv.cli("create", "--timing", "fast", "--no-record");
    const V = srv.cli("spawn", "--session", S, "--preset", "midsize_sedan", "--gear", "D");
    // A bare WebSocket: subscribe to everything of the car, then stop reading.
    const ws = new WebSocket(`ws://127.0.0.1:${srv.http}/`, ["foxglove.websocket.v1"]);
    const channels = new Map();
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no channels advertised")), WAIT_MS);
      ws.on("message", (data, isBinary) => {
        if (isBinary) return;
        const m = JSON.parse(data.toString());
        if (m.op !== "advertise") return;
        for (const ch of m.channels) channels.set(ch.topic, ch.id);
        if (channels.has(`/session/${S}/vehicle/${V}/dbw_report`)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const subscriptions = [...channels.entries()]
      .filter(([topic]) => topic.startsWith(`/session/${S}/`))
      .map(([, id], i) => ({ id: i + 1, channelId: id }));
    ws.send(JSON.stringify({ op: "subscribe", subscriptions }));
    ws.pause();
    // The fast session outruns the socket: latest-wins replaces and drops
    // samples instead of queueing them.
    const health = async () =>
      (await fetch(`http://127.0.0.1:${srv.http}/healthz`)).json();
    let h = await health();
    const deadline = Date.now() + WAIT_MS;
    while (h.state_dropped < 1000 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      h = await health();
    }
    assert.ok(h.state_dropped >= 1000, `samples dropped: ${JSON.stringify(h)}`);
    // Its queue holds at most the latest of each stream: far below the
    // output limits (256 KiB soft, 8 MiB hard), and the connection lives on.
    for (let i = 0; i < 5; i++) {
      h = await health();
      assert.ok(h.queued_bytes_max < 256 * 1024, `bounded queue: ${JSON.stringify(h)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(ws.readyState, WebSocket.OPEN);
    ws.resume();
    ws.close();
  } finally {
    await srv.stop();
  }
});
