// A graceful stop (docs/deploy.md "Stopping"), end to end with the real
// paddockd on loopback: SIGTERM with --drain-seconds during a recorded
// session with subscribers over TCP and WebSocket. Every client is told
// (ServerDraining), no session is created meanwhile, /readyz says why, the
// session runs on until the grace period ends it, the recording verifies,
// and paddockd exits 0 within the grace period. A drain ends sooner once
// the clients have closed their sessions, and a second signal stops at once.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ErrorCode, GEAR_DRIVE, PADDOCKD, httpGet, startServer, TcpClient, WsClient } from './paddock_client.mjs';

// A recorded session with a car driving and a state subscriber on c.
async function drivingSession(c, name) {
  const created = await c.request({ sessionCreate: { name } });
  assert.equal(created.body, 'sessionCreated', JSON.stringify(created));
  const sessionId = created.sessionCreated.session.sessionId;
  const spawned = await c.request({ vehicleSpawn: { sessionId, preset: 'ref1_sedan', gear: GEAR_DRIVE } });
  assert.equal(spawned.body, 'vehicleSpawned', JSON.stringify(spawned));
  const vehicleId = spawned.vehicleSpawned.vehicleId;
  const ok = await c.request({ dbwCommand: { sessionId, vehicleId, throttlePct: 30, gear: GEAR_DRIVE } });
  assert.equal(ok.body, 'ok', JSON.stringify(ok));
  return { sessionId, vehicleId };
}

async function subscribe(c, sessionId) {
  const sub = await c.request({ subscribe: { sessionId } });
  assert.equal(sub.body, 'subscribed', JSON.stringify(sub));
  return sub.subscribed.subscriptionId;
}

function latestTick(c) {
  const states = c.pushed.filter((f) => f.body === 'stateBatch');
  return states.length ? states.at(-1).stateBatch.tick : 0;
}

describe('graceful drain', () => {
  test('SIGTERM with --drain-seconds: told, refused, run to the end, verified, exit 0', async () => {
    const grace = 3;
    const srv = await startServer(['--drain-seconds', String(grace)]);
    const owner = await TcpClient.open(srv.tcp);
    await owner.hello();
    const { sessionId, vehicleId } = await drivingSession(owner, 'drained');
    await subscribe(owner, sessionId);
    const watcher = await WsClient.open(`ws://127.0.0.1:${srv.http}/v1/ws`);
    await watcher.hello(true);
    await subscribe(watcher, sessionId);
    await watcher.waitFor((f) => f.body === 'stateBatch');

    const termAt = Date.now();
    srv.proc.kill('SIGTERM');
    for (const c of [owner, watcher]) {
      const notice = await c.waitFor((f) => f.body === 'serverDraining', 5000);
      assert.equal(notice.requestId, 0, 'pushed');
      assert.equal(notice.serverDraining.graceS, grace);
      assert.equal(notice.serverDraining.reason, 'SIGTERM');
      assert.equal(notice.serverDraining.sessions, 1);
    }
    const ready = await httpGet(srv.http, '/readyz');
    assert.equal(ready.status, 503);
    assert.match(ready.body, /^not ready: draining/);
    const refused = await owner.request({ sessionCreate: { name: 'too late' } });
    assert.equal(refused.body, 'error', JSON.stringify(refused));
    assert.equal(refused.error.code, ErrorCode.CLOSED);
    assert.match(refused.error.message, /draining \(SIGTERM\)/);
    // The session runs on meanwhile: the car still drives, its stream flows.
    const before = latestTick(owner);
    const ok = await owner.request({ dbwCommand: { sessionId, vehicleId, throttlePct: 50, gear: GEAR_DRIVE } });
    assert.equal(ok.body, 'ok', JSON.stringify(ok));
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.ok(latestTick(owner) > before + 30, `ticks go on: ${before} -> ${latestTick(owner)}`);

    const { code, signal } = await srv.exited;
    const took = (Date.now() - termAt) / 1000;
    assert.equal(signal, null);
    assert.equal(code, 0, `exit status 0: ${srv.stderr()}`);
    assert.ok(took >= grace - 0.5, `the session ran the grace period out: ${took} s`);
    assert.ok(took < grace + 2, `stopped within the grace period: ${took} s`);
    assert.match(srv.stdout(), /terminated, draining: 1 sessions end within 3 s/);
    assert.match(srv.stdout(), /the drain's 3 s are over: ending 1 sessions/);
    const ended = await owner.waitFor((f) => f.body === 'error' && /ended: session \d+ was closed/.test(f.error.message));
    assert.equal(ended.error.code, ErrorCode.CLOSED);

    const verify = spawnSync(PADDOCKD, ['verify', '--db', join(srv.dir, 'paddock.db'), String(sessionId)],
      { encoding: 'utf8' });
    assert.equal(verify.status, 0, `the recording verifies: ${verify.stdout}${verify.stderr}`);
    assert.match(verify.stdout, /^match:\s+yes$/m);
    assert.match(verify.stdout, /^hole:\s+-$/m);
    assert.match(verify.stdout, /^interrupted:\s+no$/m);
    const lastTick = Number(/^last_tick:\s+(\d+)$/m.exec(verify.stdout)[1]);
    assert.ok(lastTick >= (grace - 0.5) * 120, `recorded through the drain: tick ${lastTick}`);
    rmSync(srv.dir, { recursive: true, force: true });
  });

  test('the drain ends as soon as the clients have closed their sessions', async () => {
    const srv = await startServer(['--drain-seconds', '60']);
    const c = await TcpClient.open(srv.tcp);
    await c.hello();
    const { sessionId } = await drivingSession(c, 'closed by its client');
    srv.proc.kill('SIGTERM');
    await c.waitFor((f) => f.body === 'serverDraining');
    const termAt = Date.now();
    const closed = await c.request({ sessionClose: { sessionId } });
    assert.equal(closed.body, 'ok', JSON.stringify(closed));
    const { code } = await srv.exited;
    assert.equal(code, 0, srv.stderr());
    assert.ok(Date.now() - termAt < 5000, 'well within the 60 s');
    rmSync(srv.dir, { recursive: true, force: true });
  });

  test('a second signal during the drain stops at once; SIGINT never drains', async () => {
    const srv = await startServer(['--drain-seconds', '60']);
    const c = await TcpClient.open(srv.tcp);
    await c.hello();
    await drivingSession(c, 'impatient');
    srv.proc.kill('SIGTERM');
    await c.waitFor((f) => f.body === 'serverDraining');
    const termAt = Date.now();
    srv.proc.kill('SIGTERM');
    assert.equal((await srv.exited).code, 0, srv.stderr());
    assert.ok(Date.now() - termAt < 5000);
    assert.match(srv.stdout(), /terminated, stopping/);
    rmSync(srv.dir, { recursive: true, force: true });

    const srv2 = await startServer(['--drain-seconds', '60']);
    const c2 = await TcpClient.open(srv2.tcp);
    await c2.hello();
    await drivingSession(c2, 'interrupted');
    srv2.proc.kill('SIGINT');
    assert.equal((await srv2.exited).code, 0, srv2.stderr());
    assert.ok(!c2.pushed.some((f) => f.body === 'serverDraining'), 'no drain on SIGINT');
    assert.match(srv2.stdout(), /interrupted, stopping/);
    rmSync(srv2.dir, { recursive: true, force: true });
  });
});
