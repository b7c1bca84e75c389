// MCAP export end to end (issue 30): the real paddockd on a free loopback
// port records a midsize sedan driven at 50 % throttle for 2 s through the
// real paddock CLI, `paddock export --mcap` writes it, and @mcap/core's
// indexed reader (over @mcap/nodejs's FileHandleReadable) and stream reader
// read it back: the schemas, the channels, the message counts per channel
// against the recording's ticks (`paddock meta`), the time range in sim
// time, and messages decoded with the embedded FileDescriptorSet through
// protobufjs (telemetry equal to the CSV export's, bit for bit; speed
// rising under throttle; DBW reports at steady cadences), and the same
// messages again from zstd-compressed chunks. Then the
// refusals: a session that does not exist, an output file that exists, a
// session that was not recorded, an unknown telemetry channel.
//
// Environment: PADDOCKD and PADDOCK (the built programs). Run by ctest
// (tests/integration/CMakeLists.txt) as `node --test`.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, readFileSync, existsSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";

import { McapIndexedReader, McapStreamReader } from "@mcap/core";
import { FileHandleReadable } from "@mcap/nodejs";
import zstd from "@foxglove/wasm-zstd";
import protobuf from "protobufjs";
import "protobufjs/ext/descriptor.js";

const PADDOCKD = process.env.PADDOCKD;
const PADDOCK = process.env.PADDOCK;
const TICK_HZ = 120;

let dir;
let server;
let address;
let session;
let meta;
let mcapPath;
let zstdPath;
let csvRows; // tick -> Speed, as the CSV export re-simulates it
let serverOutput = "";

// The CLI against the test's server: { status, stdout, stderr }.
function cli(...args) {
  const r = spawnSync(PADDOCK, ["--server", address, ...args], { encoding: "utf8", timeout: 60000 });
  if (r.error) throw r.error;
  return r;
}

function cliOk(...args) {
  const r = cli(...args);
  assert.equal(r.status, 0, `paddock ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

// The ns of a tick's sim time, as the exporter rounds it.
function tickNs(tick) {
  return BigInt(Math.round((tick / TICK_HZ) * 1e9));
}

before(async () => {
  assert.ok(PADDOCKD && PADDOCK, "PADDOCKD and PADDOCK must name the built programs");
  dir = mkdtempSync(join(tmpdir(), "pdk-mcap-"));
  server = spawn(PADDOCKD, ["--listen", "127.0.0.1:0", "--db", join(dir, "paddock.db")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let seen = "";
  server.stderr.on("data", (d) => {
    seen += d;
    serverOutput += d;
  });
  // The listening line names the port the kernel gave.
  address = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`paddockd did not listen: ${seen}`)), 20000);
    server.stdout.on("data", (d) => {
      seen += d;
      const m = /listening on (127\.0\.0\.1:\d+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    server.on("exit", (code) => reject(new Error(`paddockd exited with ${code}: ${seen}`)));
  });

  session = cliOk("create", "--name", "mcap export").trim();
  const script = join(dir, "throttle.json");
  writeFileSync(
    script,
    JSON.stringify({
      description: "50 % throttle for 2 s",
      initial: { gear: "D" },
      steps: [
        { t: 0, throttle_pct: 50, brake_bar: 0, steer_wheel_deg: 0 },
        { t: 2, throttle_pct: 50 },
      ],
    }),
  );
  cliOk("drive", "--session", session, "--preset", "midsize_sedan", "--script", script);
  cliOk("close", "--session", session);
  meta = JSON.parse(cliOk("meta", session));

  const csvPath = join(dir, "speed.csv");
  cliOk("csv", session, "--channels", "Speed", "--out", csvPath);
  csvRows = new Map();
  for (const line of readFileSync(csvPath, "utf8").trim().split("\n").slice(1)) {
    const [tick, , , speed] = line.split(",");
    csvRows.set(BigInt(tick), Number(speed));
  }

  mcapPath = join(dir, "session.mcap");
  cliOk("export", "--mcap", session, "--channels", "Speed,EngineRPM", "--out", mcapPath);
  zstdPath = join(dir, "session.zstd.mcap");
  cliOk("export", "--mcap", session, "--channels", "Speed,EngineRPM", "--zstd", "--out", zstdPath);
});

// paddockd stops cleanly on SIGTERM: exit 0 (under the sanitizers, also no
// leak or error report, which would make it non-zero).
after(async () => {
  let code = server?.exitCode;
  if (server && code === null) {
    const exited = once(server, "exit");
    server.kill("SIGTERM");
    [code] = await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  assert.equal(code, 0, `paddockd exited with ${code}: ${serverOutput}`);
});

async function openIndexed() {
  const handle = await open(mcapPath, "r");
  const reader = await McapIndexedReader.Initialize({ readable: new FileHandleReadable(handle) });
  return { handle, reader };
}

// The vehicle's first and last ticks in the recording: it is in the world
// from the tick after its spawn to the recording's last tick.
function vehicleTicks() {
  assert.equal(meta.vehicles.length, 1);
  const v = meta.vehicles[0];
  return { id: v.vehicle_id, first: v.spawn_tick + 1, last: meta.last_tick };
}

test("the indexed reader finds the schemas, channels, counts and sim-time range", async () => {
  const { handle, reader } = await openIndexed();
  try {
    assert.equal(reader.header.profile, "");
    assert.match(reader.header.library, /^paddock \d+\.\d+\.\d+/);

    const schemaNames = [...reader.schemasById.values()].map((s) => s.name).sort();
    assert.deepEqual(schemaNames, [
      "paddock.v1.DbwReport",
      "paddock.v1.TelemetryBatch",
      "paddock.v1.VehicleState",
    ]);
    for (const s of reader.schemasById.values()) assert.equal(s.encoding, "protobuf");

    const { id, first, last } = vehicleTicks();
    const byTopic = new Map([...reader.channelsById.values()].map((c) => [c.topic, c]));
    assert.deepEqual(
      [...byTopic.keys()].sort(),
      [`/session/${session}/vehicle/${id}/dbw_report`, `/session/${session}/vehicle/${id}/state`, `/session/${session}/vehicle/${id}/telemetry`],
    );
    for (const c of byTopic.values()) {
      assert.equal(c.messageEncoding, "protobuf");
      assert.equal(c.metadata.get("vehicle_id"), String(id));
      assert.equal(c.metadata.get("preset"), "midsize_sedan");
    }
    assert.equal(byTopic.get(`/session/${session}/vehicle/${id}/telemetry`).metadata.get("channels"), "Speed,EngineRPM");

    // One state and one telemetry message per tick the car was in the world.
    const ticks = BigInt(last - first + 1);
    assert.ok(ticks > 200n, `the car was recorded for ${ticks} ticks`);
    const counts = reader.statistics.channelMessageCounts;
    assert.equal(counts.get(byTopic.get(`/session/${session}/vehicle/${id}/state`).id), ticks);
    assert.equal(counts.get(byTopic.get(`/session/${session}/vehicle/${id}/telemetry`).id), ticks);
    assert.ok(counts.get(byTopic.get(`/session/${session}/vehicle/${id}/dbw_report`).id) > ticks / 10n);
    assert.equal(reader.statistics.messageStartTime, tickNs(first));
    assert.equal(reader.statistics.messageEndTime, tickNs(last));
    assert.ok(reader.chunkIndexes.length >= 1);
    assert.equal(reader.statistics.chunkCount, reader.chunkIndexes.length);

    // Reading every message back through the indexes gives those counts,
    // in time order, log time = publish time.
    const seen = new Map();
    let prev = -1n;
    for await (const m of reader.readMessages()) {
      seen.set(m.channelId, (seen.get(m.channelId) ?? 0n) + 1n);
      assert.equal(m.logTime, m.publishTime);
      assert.ok(m.logTime >= prev);
      prev = m.logTime;
    }
    for (const [channelId, n] of counts) assert.equal(seen.get(channelId), n);
  } finally {
    await handle.close();
  }
});

test("messages decode with the embedded FileDescriptorSet and make sense", async () => {
  const { handle, reader } = await openIndexed();
  try {
    const { id, first, last } = vehicleTicks();
    const types = new Map();
    for (const [schemaId, s] of reader.schemasById) {
      const root = protobuf.Root.fromDescriptor(s.data);
      types.set(schemaId, root.lookupType(s.name));
    }
    const topicOf = new Map([...reader.channelsById.values()].map((c) => [c.id, c.topic]));
    const typeOf = new Map([...reader.channelsById.values()].map((c) => [c.id, types.get(c.schemaId)]));

    const speeds = [];
    const reportTicks = new Map(); // report kind -> its ticks
    let telemetryChecked = 0;
    for await (const m of reader.readMessages()) {
      const msg = typeOf.get(m.channelId).decode(m.data);
      const topic = topicOf.get(m.channelId);
      if (topic.endsWith("/state")) {
        assert.equal(msg.vehicleId, id);
        speeds.push(msg.speedMps);
      } else if (topic.endsWith("/telemetry")) {
        // The same re-simulation as the CSV export: the same bits.
        const tick = BigInt(msg.tick.toString());
        assert.equal(m.logTime, tickNs(Number(tick)));
        assert.equal(msg.rows.length, 1);
        assert.equal(msg.rows[0].vehicleId, id);
        assert.equal(msg.rows[0].values.length, 2);
        assert.equal(msg.rows[0].values[0], csvRows.get(tick), `Speed at tick ${tick}`);
        telemetryChecked++;
      } else {
        assert.ok(topic.endsWith("/dbw_report"));
        assert.equal(msg.vehicleId, id);
        assert.ok(msg.report, "a DbwReport carries one report");
        const tick = Number(msg.tick.toString());
        assert.ok(tick >= first && tick <= last);
        if (!reportTicks.has(msg.report)) reportTicks.set(msg.report, []);
        reportTicks.get(msg.report).push(tick);
      }
    }
    assert.equal(telemetryChecked, last - first + 1);
    assert.equal(speeds.length, last - first + 1);
    // 50 % throttle from rest: slow at first, clearly faster at the end.
    assert.ok(speeds[0] < 0.5, `speed at the start ${speeds[0]} m/s`);
    assert.ok(speeds.at(-1) > 1.5, `speed at the end ${speeds.at(-1)} m/s`);
    assert.ok(speeds.at(-1) > speeds[Math.floor(speeds.length / 2)]);
    // Each report kind comes at its own steady period (the kit's rates).
    assert.ok(reportTicks.has("steering") && reportTicks.has("system") && reportTicks.has("wheelSpeeds"));
    for (const [kind, ticks] of reportTicks) {
      const period = ticks[1] - ticks[0];
      assert.ok(period >= 1, `${kind}: period ${period}`);
      for (let i = 1; i < ticks.length; i++)
        assert.equal(ticks[i] - ticks[i - 1], period, `${kind} at tick ${ticks[i]}`);
      assert.ok(ticks[0] - first < period && last - ticks.at(-1) < period, `${kind} covers the run`);
    }
  } finally {
    await handle.close();
  }
});

test("the stream reader reads the same file front to back with its CRCs checked", async () => {
  const { handle, reader } = await openIndexed();
  const counts = reader.statistics.channelMessageCounts;
  await handle.close();

  const stream = new McapStreamReader({ validateCrcs: true });
  stream.append(readFileSync(mcapPath));
  const kinds = [];
  const seen = new Map();
  let record;
  while ((record = stream.nextRecord())) {
    if (kinds.at(-1) !== record.type) kinds.push(record.type);
    if (record.type === "Message") seen.set(record.channelId, (seen.get(record.channelId) ?? 0n) + 1n);
  }
  assert.ok(stream.done(), "the stream reader reached the end magic");
  assert.equal(kinds[0], "Header");
  assert.ok(kinds.includes("DataEnd") && kinds.includes("Statistics") && kinds.includes("ChunkIndex"));
  assert.equal(kinds.at(-1), "Footer");
  for (const [channelId, n] of counts) assert.equal(seen.get(channelId), n);
});

test("zstd chunks hold the same messages, smaller", async () => {
  await zstd.isLoaded;
  const plain = await openIndexed();
  const handle = await open(zstdPath, "r");
  try {
    const packed = await McapIndexedReader.Initialize({
      readable: new FileHandleReadable(handle),
      decompressHandlers: { zstd: (buffer, size) => zstd.decompress(buffer, Number(size)) },
    });
    assert.ok(packed.chunkIndexes.length >= 1);
    for (const c of packed.chunkIndexes) {
      assert.equal(c.compression, "zstd");
      assert.ok(c.compressedSize < c.uncompressedSize);
    }
    const { size: plainBytes } = await plain.handle.stat();
    const { size: packedBytes } = await handle.stat();
    assert.ok(packedBytes < plainBytes, `${packedBytes} bytes against ${plainBytes}`);
    const a = plain.reader.readMessages();
    const topicA = new Map([...plain.reader.channelsById.values()].map((c) => [c.id, c.topic]));
    const topicB = new Map([...packed.channelsById.values()].map((c) => [c.id, c.topic]));
    let n = 0;
    for await (const m of packed.readMessages()) {
      const { value: want } = await a.next();
      assert.equal(topicB.get(m.channelId), topicA.get(want.channelId));
      assert.equal(m.logTime, want.logTime);
      assert.deepEqual(m.data, want.data);
      n++;
    }
    assert.equal((await a.next()).done, true);
    assert.equal(BigInt(n), plain.reader.statistics.messageCount);
  } finally {
    await handle.close();
    await plain.handle.close();
  }
});

test("refusals: no such session, an existing file, an unrecorded session, a bad channel", () => {
  const out = join(dir, "refused.mcap");

  let r = cli("export", "--mcap", "999", "--out", out);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /NOT_FOUND.*999/);
  assert.ok(!existsSync(out));

  r = cli("export", "--mcap", session, "--out", mcapPath);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /already exists/);

  const unrecorded = cliOk("create", "--no-record").trim();
  r = cli("export", "--mcap", unrecorded, "--out", out);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`NOT_FOUND.*${unrecorded}`));
  assert.ok(!existsSync(out));

  r = cli("export", "--mcap", session, "--channels", "Speed,NoSuchChannel", "--out", out);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /UNKNOWN_KEY.*NoSuchChannel/);
  assert.ok(!existsSync(out));

  r = cli("export", session, "--channels", "Speed", "--out", out);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--channels .*--mcap/);
  r = cli("export", session, "--zstd", "--out", out);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--zstd .*--mcap/);
});
