// What an operator reads from paddockd --http (docs/deploy.md "Metrics and
// health"), end to end with the real server on loopback: /metrics passes
// promtool's check during a run of two sessions, and its figures are the
// server's own (each session's lateness and tick-time histograms against
// the session's SessionInfo, refusals, connections by role, the store's
// commits);
// /livez and /readyz answer as an orchestrator's probes expect.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ErrorCode, GEAR_DRIVE, SOURCE_DIR, httpGet, startServer, TcpClient } from './paddock_client.mjs';

// deploy/install-deps.sh unpacks promtool into .tools/bin; PDK_PROMTOOL or
// PATH may name another.
function promtool() {
  if (process.env.PDK_PROMTOOL) return process.env.PDK_PROMTOOL;
  const local = join(SOURCE_DIR, '.tools/bin/promtool');
  return existsSync(local) ? local : 'promtool';
}

// The exposition's samples: name -> [{labels, value}].
function parse(text) {
  const samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `a sample line: ${line}`);
    const labels = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
    if (!samples.has(m[1])) samples.set(m[1], []);
    samples.get(m[1]).push({ labels, value: Number(m[3]) });
  }
  return samples;
}

// The one sample of name whose labels include want.
function sample(samples, name, want = {}) {
  const found = (samples.get(name) ?? []).filter((s) =>
    Object.entries(want).every(([k, v]) => s.labels[k] === v));
  assert.equal(found.length, 1, `one ${name} ${JSON.stringify(want)}: ${JSON.stringify(found)}`);
  return found[0].value;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('metrics and health', () => {
  let srv;
  before(async () => { srv = await startServer(); });
  after(async () => {
    const { code } = await srv.stop();
    assert.equal(code, 0, 'paddockd stops cleanly');
  });

  test('livez and readyz answer 200 while serving', async () => {
    const live = await httpGet(srv.http, '/livez');
    assert.equal(live.status, 200);
    assert.equal(live.body, 'ok\n');
    const ready = await httpGet(srv.http, '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body, 'ready\n');
    const head = await httpGet(srv.http, '/metrics');
    assert.equal(head.status, 200);
    assert.match(head.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  });

  test('two sessions: promtool passes the scrape, and the figures are the sessions\' own', async () => {
    const c = await TcpClient.open(srv.tcp);
    await c.hello();
    const ids = [];
    for (const name of ['metrics "one"', 'metrics two']) {
      const created = await c.request({ sessionCreate: { name } });
      assert.equal(created.body, 'sessionCreated', JSON.stringify(created));
      const sessionId = created.sessionCreated.session.sessionId;
      const spawned = await c.request({ vehicleSpawn: { sessionId, preset: 'ref1_sedan', gear: GEAR_DRIVE } });
      assert.equal(spawned.body, 'vehicleSpawned', JSON.stringify(spawned));
      ids.push(sessionId);
    }
    const sub = await c.request({ subscribe: { sessionId: ids[0] } });
    assert.equal(sub.body, 'subscribed', JSON.stringify(sub));
    // A connection that has said nothing yet counts as role "none".
    const silent = net.connect(srv.tcp, '127.0.0.1');
    await new Promise((resolve) => silent.once('connect', resolve));
    // One refusal of each of two kinds.
    const missing = await c.request({ sessionControl: { sessionId: 999999, pause: true } });
    assert.equal(missing.body, 'error');
    assert.equal(missing.error.code, ErrorCode.NOT_FOUND);
    const badRate = await c.request({ statsSubscribe: { sessionId: ids[1], rateHz: 61 } });
    assert.equal(badRate.body, 'error');
    assert.equal(badRate.error.code, ErrorCode.OUT_OF_RANGE);
    await sleep(1500);

    // During the run: the scrape as Prometheus would take it.
    const live = await httpGet(srv.http, '/metrics');
    assert.equal(live.status, 200);
    const check = spawnSync(promtool(), ['check', 'metrics'], { input: live.body, encoding: 'utf8' });
    assert.equal(check.error, undefined, `promtool runs (deploy/install-deps.sh installs it): ${check.error}`);
    assert.equal(check.status, 0, `promtool check metrics: ${check.stdout}${check.stderr}`);
    const during = parse(live.body);
    assert.equal(sample(during, 'paddock_sessions'), 2);
    assert.equal(sample(during, 'paddock_connections', { role: 'admin' }), 1, 'the client, as "local"');
    assert.equal(sample(during, 'paddock_connections', { role: 'none' }), 1, 'the silent one');
    assert.equal(sample(during, 'paddock_refused_total', { code: 'NOT_FOUND' }), 1);
    assert.equal(sample(during, 'paddock_refused_total', { code: 'OUT_OF_RANGE' }), 1);
    assert.equal(sample(during, 'paddock_refused_total', { code: 'BUSY' }), 0);
    assert.ok(sample(during, 'paddock_received_frames_total') >= 8, 'every request counted');
    assert.ok(sample(during, 'paddock_sent_bytes_total') > sample(during, 'paddock_received_bytes_total'),
      'the state stream outweighs the requests');
    assert.ok(sample(during, 'paddock_store_commit_seconds_count') > 0, 'the recordings commit');
    assert.ok(sample(during, 'paddock_store_written_records_total') > 0);
    assert.ok(sample(during, 'paddock_store_file_bytes') > 0);
    assert.equal(sample(during, 'paddock_ready'), 1);
    assert.equal(sample(during, 'paddock_session_subscribers', { session: String(ids[0]) }), 1);
    assert.equal(sample(during, 'paddock_session_vehicles', { session: String(ids[1]) }), 1);
    assert.equal(sample(during, 'paddock_session_tick', { name: 'metrics \\"one\\"' }) > 0, true,
      'a name with quotes is escaped');

    // Paused, nothing ticks: each session's histogram against its SessionInfo.
    for (const sessionId of ids) {
      const paused = await c.request({ sessionControl: { sessionId, pause: true } });
      assert.equal(paused.body, 'sessionControlReply', JSON.stringify(paused));
    }
    const listed = await c.request({ sessionList: {} });
    const still = parse((await httpGet(srv.http, '/metrics')).body);
    for (const sessionId of ids) {
      const info = listed.sessionListReply.sessions.find((s) => s.sessionId === sessionId);
      const which = { session: String(sessionId) };
      const buckets = still.get('paddock_session_lateness_seconds_bucket')
        .filter((s) => s.labels.session === String(sessionId))
        .map((s) => ({ le: s.labels.le === '+Inf' ? Infinity : Number(s.labels.le), count: s.value }));
      const count = sample(still, 'paddock_session_lateness_seconds_count', which);
      assert.ok(info.tick > 100, `it ran: tick ${info.tick}`);
      assert.equal(count, info.tick, 'one observation per real-time tick');
      assert.equal(buckets.at(-1).count, count, '+Inf holds them all');
      for (let i = 1; i < buckets.length; i++) {
        assert.ok(buckets[i].le > buckets[i - 1].le && buckets[i].count >= buckets[i - 1].count,
          'cumulative buckets in order');
      }
      const period = buckets.find((b) => Math.abs(b.le - 1 / 120) < 1e-9);
      assert.ok(period, 'a bucket at the 120 Hz period');
      assert.equal(count - period.count, info.overruns, 'the ticks above the period are the overruns');
      assert.equal(sample(still, 'paddock_session_overruns_total', which), info.overruns);
      assert.equal(sample(still, 'paddock_session_skipped_deadlines_total', which), info.skippedTicks);
      assert.equal(sample(still, 'paddock_session_tick', which), info.tick);
      assert.equal(sample(still, 'paddock_session_paused', which), 1);
      // p99 as SessionInfo gives it (a 10 µs bucket's upper edge) lies in
      // the coarse bucket where the cumulative count reaches 99 %.
      const want = Math.max(1, Math.floor(count * 0.99));
      const k = buckets.findIndex((b) => b.count >= want);
      const p99 = info.latenessP99Ms / 1e3;
      assert.ok(p99 <= buckets[k].le + 1e-5, `p99 ${p99} s at most ${buckets[k].le} s`);
      if (k > 0) assert.ok(p99 > buckets[k - 1].le, `p99 ${p99} s above ${buckets[k - 1].le} s`);
      const sum = sample(still, 'paddock_session_lateness_seconds_sum', which);
      assert.ok(sum >= 0 && sum <= count * 0.1, `the sum is plausible: ${sum} s over ${count} ticks`);

      // How long the ticks took: one observation per tick, those above the
      // period its long_ticks, its p99 and max as SessionInfo gives them.
      const took = still.get('paddock_session_tick_seconds_bucket')
        .filter((s) => s.labels.session === String(sessionId))
        .map((s) => ({ le: s.labels.le === '+Inf' ? Infinity : Number(s.labels.le), count: s.value }));
      const ticks = sample(still, 'paddock_session_tick_seconds_count', which);
      assert.equal(ticks, info.tick, 'one tick time per tick');
      assert.equal(took.at(-1).count, ticks);
      const within = took.find((b) => Math.abs(b.le - 1 / 120) < 1e-9);
      assert.equal(ticks - within.count, Number(info.longTicks ?? 0), 'the ticks above the period are long_ticks');
      const tickP99 = info.tickTimeP99Ms / 1e3;
      const kt = took.findIndex((b) => b.count >= Math.max(1, Math.floor(ticks * 0.99)));
      assert.ok(tickP99 > 0 && tickP99 <= took[kt].le + 1e-5, `tick p99 ${tickP99} s at most ${took[kt].le} s`);
      assert.ok(info.tickTimeMaxMs >= info.tickTimeP99Ms - 0.01 && info.tickTimeP50Ms <= info.tickTimeP99Ms,
        `p50 ${info.tickTimeP50Ms} <= p99 ${info.tickTimeP99Ms} <= max ${info.tickTimeMaxMs} (+ a bucket)`);
      const spent = sample(still, 'paddock_session_tick_seconds_sum', which);
      assert.ok(spent > 0 && spent <= ticks * info.tickTimeMaxMs / 1e3 + 1e-9,
        `the sum lies within ticks times the longest: ${spent} s`);
    }
    silent.destroy();
    await c.close();
  });
});
