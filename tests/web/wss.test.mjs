// paddockd's --http listener with the --tls-* files (issue 28): HTTPS and
// WSS with the TCP listener's certificate and key, client certificates
// when required, and the warning for --http off loopback. The certificates
// are made here with the openssl command, as docs/security.md shows.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PADDOCKD, SOURCE_DIR, startServer, WsClient } from './paddock_client.mjs';

const dir = mkdtempSync(join(tmpdir(), 'pdk-wss-'));
const f = (name) => join(dir, name);
const openssl = (...args) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });

// A CA and a certificate from it (the server's for 127.0.0.1, or a
// client's); san names the server's addresses.
function makeCa(name) {
  openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', f(`${name}.key`));
  openssl('req', '-x509', '-new', '-key', f(`${name}.key`), '-out', f(`${name}.pem`), '-days', '2',
    '-subj', `/CN=${name}`);
}
function makeCert(name, ca, san) {
  openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', f(`${name}.key`));
  openssl('req', '-new', '-key', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=${name}`);
  const ext = [];
  if (san) {
    writeFileSync(f(`${name}.ext`), `subjectAltName=${san}\n`);
    ext.push('-extfile', f(`${name}.ext`));
  }
  openssl('x509', '-req', '-in', f(`${name}.csr`), '-CA', f(`${ca}.pem`), '-CAkey', f(`${ca}.key`),
    '-CAcreateserial', '-days', '2', ...ext, '-out', f(`${name}.pem`));
}
makeCa('ca');
makeCa('other-ca');
makeCert('server', 'ca', 'IP:127.0.0.1,DNS:localhost');
makeCert('rig-1', 'ca');
makeCert('stranger', 'other-ca');
const ca = readFileSync(f('ca.pem'));
const clientCert = (name) => ({ cert: readFileSync(f(`${name}.pem`)), key: readFileSync(f(`${name}.key`)) });
const tlsArgs = ['--tls-cert', f('server.pem'), '--tls-key', f('server.key')];
after(() => rmSync(dir, { recursive: true, force: true }));

function getHealth(port, options = {}) {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: '/healthz', ...options }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

// Resolves once paddockd's stderr matches re; fails with it after 5 s.
async function logged(srv, re) {
  for (let waited = 0; !re.test(srv.stderr()); waited += 20) {
    if (waited >= 5000) assert.match(srv.stderr(), re);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Hello over WSS: resolves with the reply, rejects with the connection's error.
async function hello(url, options) {
  const c = await WsClient.open(url, 'paddock.v1', options);
  const r = await c.hello();
  await c.close();
  return r;
}

// A connection that must fail: the error or close it ended with, as text.
async function refused(url, options) {
  try {
    const r = await hello(url, options);
    return `served: ${JSON.stringify(r)}`;
  } catch (e) {
    return String(e.message ?? e);
  }
}

describe('HTTPS and WSS with --tls-cert and --tls-key', () => {
  let srv;
  let wss;
  before(async () => {
    srv = await startServer(tlsArgs);
    wss = `wss://127.0.0.1:${srv.http}/v1/ws`;
  });
  after(async () => {
    const { code, stdout } = await srv.stop();
    assert.equal(code, 0, 'paddockd stops cleanly');
    assert.match(stdout, /stopped cleanly/);
  });

  test('the start says https and that TLS covers --http', () => {
    assert.match(srv.stdout(), /paddockd: https on 127\.0\.0\.1:\d+/);
    assert.match(srv.stderr(), /TLS on 127\.0\.0\.1:0 and --http 127\.0\.0\.1:0 with /);
  });

  test('a wss:// client with the CA says Hello and gets Welcome', async () => {
    const r = await hello(wss, { ca });
    assert.equal(r.body, 'welcome', JSON.stringify(r));
    assert.equal(r.welcome.tickRateHz, 120);
  });

  test('GET https://.../healthz with the CA', async () => {
    const r = await getHealth(srv.http, { ca });
    assert.equal(r.status, 200);
    assert.equal(typeof JSON.parse(r.body).uptime_s, 'number', r.body);
  });

  test('without the CA the server certificate is not trusted', async () => {
    await assert.rejects(getHealth(srv.http), /unable to verify the first certificate/);
  });

  test('a plain ws:// client at the TLS port fails, and WSS is served after', async () => {
    const why = await refused(`ws://127.0.0.1:${srv.http}/v1/ws`);
    assert.match(why, /ECONNRESET|socket hang up/, why);
    const r = await hello(wss, { ca });
    assert.equal(r.body, 'welcome', JSON.stringify(r));
  });
});

describe('WSS with --tls-require-client-cert', () => {
  let srv;
  let wss;
  before(async () => {
    srv = await startServer([...tlsArgs, '--tls-client-ca', f('ca.pem'), '--tls-require-client-cert']);
    wss = `wss://127.0.0.1:${srv.http}/v1/ws`;
  });
  after(async () => {
    assert.equal((await srv.stop()).code, 0);
  });

  test('a client without a certificate fails', async () => {
    const why = await refused(wss, { ca });
    assert.match(why, /certificate required|alert number 116/, why);
  });

  test('a certificate from another CA fails', async () => {
    const why = await refused(wss, { ca, ...clientCert('stranger') });
    assert.match(why, /unknown ca|alert number 48/, why);
    // The client may hear the alert before paddockd's log line reaches us.
    await logged(srv, /refusing a TLS client certificate: unable to get local issuer certificate/);
  });

  test('the CA\'s certificate is served, over WSS and HTTPS', async () => {
    const r = await hello(wss, { ca, ...clientCert('rig-1') });
    assert.equal(r.body, 'welcome', JSON.stringify(r));
    const h = await getHealth(srv.http, { ca, ...clientCert('rig-1') });
    assert.equal(h.status, 200);
  });
});

// --auth with --http on a network address: warned about without TLS, not
// with it. A --db under a regular file cannot be created: paddockd stops
// after the warnings and before anything is bound, so nothing listens on
// the network.
describe('--http off loopback', () => {
  const keys = f('keys.json');
  writeFileSync(keys, JSON.stringify({
    keys: [{ name: 'rig', role: 'driver', sha256: createHash('sha256').update('k-wss-rig-51c2').digest('hex') }],
  }));
  const start = (extra) => spawnSync(PADDOCKD, ['serve', '--listen', '127.0.0.1:0', '--http', '0.0.0.0:0',
    '--auth', keys, '--db', join(keys, 'paddock.db'), '--presets', join(SOURCE_DIR, 'presets'),
    '--migrations', join(SOURCE_DIR, 'migrations'), ...extra], { encoding: 'utf8', timeout: 15000 });

  test('without TLS it warns that keys travel in clear', () => {
    const r = start([]);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /warning: --http 0\.0\.0\.0:0 is not a loopback address and has no TLS: API keys travel in clear/);
    assert.doesNotMatch(r.stderr, /listening on/);
  });

  test('with the TLS files it does not', () => {
    const r = start(tlsArgs);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /TLS on 127\.0\.0\.1:0 and --http 0\.0\.0\.0:0/);
    assert.doesNotMatch(r.stderr, /warning: --http/);
    assert.match(r.stderr, /keys\.json\/paddock\.db/, 'it stopped at the database, bound nothing');
    assert.doesNotMatch(r.stderr, /listening on/);
  });
});
