// The dashboard in a real browser (Debian's chromium, headless, driven by
// playwright-core) against the real paddockd on loopback serving the page
// over --http. Each test uses the page as a person would: clicks, keys, a
// gamepad, and reads what the page shows.
//
//   keyboard: create a session, spawn a car, drive it with W for 5 s; the
//     instruments' speed rises, the car's marker moves on the map, a
//     screenshot is written; Space stops it, R and Q move the lever; the
//     console has no errors.
//   gamepad: a scripted gamepad (navigator.getGamepads replaced before the
//     page loads) drives on its right trigger and steers with its left
//     stick: left (negative axis) turns the car left, its heading rises
//     (ISO 8855), then right turns it back; the left trigger stops it and
//     the B and Y buttons put the lever in R and P.
//   not in control: a second page holds the car's DRIVER lease; the first
//     page's "Take control" shows "not in control" naming the holder, a bad
//     telemetry channel's refusal is shown in Messages, and a page pointed at
//     a WebSocket where no server listens says it cannot connect.
//   replay: a closed session's recording replays: play, pause, seek and
//     fork from there, each answered by the server and shown on the page.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { createRequire } from "node:module";
import { startServer } from "./paddock_client.mjs";

const require = createRequire(import.meta.url);
const { chromium } = require("playwright-core");

// ctest passes the staged web root and where the screenshot goes.
function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this test through ctest`);
  return v;
}

let server;
let browser;

before(async () => {
  server = await startServer(["--web-root", env("PADDOCK_WEB_ROOT")]);
  server.url = `http://127.0.0.1:${server.http}/`;
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true });
});

after(async () => {
  if (browser) await browser.close();
  if (server) {
    const stopped = await server.stop();
    assert.equal(stopped.code, 0, `paddockd exited with ${stopped.code}: ${stopped.stderr}`);
    assert.match(stopped.stdout, /stopped cleanly/);
  }
});

// A page on the dashboard, connected, with its console errors collected.
async function openDashboard({ initScript } = {}) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
  const page = await context.newPage();
  if (initScript) await page.addInitScript(initScript);
  const problems = [];
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  await page.goto(server.url);
  await page.waitForSelector("#conn-status.pill-on", { timeout: 10000 });
  return { page, context, problems };
}

async function createSession(page, world, name) {
  await page.fill("#create-name", name);
  await page.selectOption("#create-world", world);
  await page.click("#create-form button");
  await page.waitForFunction((n) => {
    const li = document.querySelector("#session-list li.selected");
    return li && li.textContent.includes(n);
  }, name, { timeout: 10000 });
}

// Spawns the preset and waits until the page shows the new car; returns its id.
async function spawn(page, preset) {
  const before = await page.$$eval("#vehicle-table tbody tr", (rows) => rows.length);
  await page.selectOption("#spawn-preset", preset);
  await page.click("#spawn-button");
  await page.waitForFunction((n) => document.querySelectorAll("#vehicle-table tbody tr").length === n + 1,
    before, { timeout: 10000 });
  return page.evaluate(() => window.dashboard.focusId);
}

async function takeControl(page) {
  await page.click("#drive-take");
  await page.waitForSelector("#control-status.control-driving", { timeout: 10000 });
}

// The focused car as the vehicle table shows it.
async function tableRow(page, id) {
  return page.$eval(`#vehicle-table tbody tr[data-vehicle-id="${id}"]`, (tr) => {
    const td = [...tr.querySelectorAll("td")].map((c) => c.textContent);
    return { x: Number(td[1]), y: Number(td[2]), headingDeg: Number(td[3]), kmh: Number(td[4]) };
  });
}

async function errorMessages(page) {
  return page.$$eval("#errors li.error", (lis) => lis.map((li) => li.textContent));
}

test("keyboard: drive 5 s, speed rises, the marker moves, no console errors", async () => {
  const { page, context, problems } = await openDashboard();
  await createSession(page, "mixed_field", "keyboard-test");
  const id = await spawn(page, "midsize_sedan");
  await takeControl(page);

  const speed0 = Number(await page.textContent("#inst-speed"));
  const marker0 = await page.evaluate((v) => window.dashboard.map.drawn.get(v), id);
  assert.ok(marker0, "the map draws the spawned car");
  assert.ok(speed0 < 1, `a car just spawned at rest shows ${speed0} km/h`);

  await page.keyboard.down("w");
  await page.waitForTimeout(5000);
  const speed1 = Number(await page.textContent("#inst-speed"));
  const marker1 = await page.evaluate((v) => window.dashboard.map.drawn.get(v), id);
  await page.keyboard.up("w");

  assert.ok(speed1 > 20, `after 5 s of throttle the instruments show ${speed1} km/h`);
  assert.ok(marker1.x_m > marker0.x_m + 5, `the car moved forward on the map: x ${marker0.x_m} -> ${marker1.x_m} m`);
  assert.ok(marker1.sx > marker0.sx + 20, `its marker moved right on screen: ${marker0.sx} -> ${marker1.sx} px`);
  assert.equal(await page.textContent("#inst-gear").then((g) => g.startsWith("D")), true, "the gear shows D");
  // The map draws between the two latest states: half a tick after the
  // newer one arrived, the car is half way between them.
  const interp = await page.evaluate((v) => {
    const m = window.dashboard.map;
    const a = m.prev.vehicles.get(v), b = m.last.vehicles.get(v);
    const dtMs = (m.last.simTime - m.prev.simTime) * 1000;
    return { a: a.xM, b: b.xM, mid: m.poses(m.lastArrivalMs + dtMs / 2).get(v).x, dtMs };
  }, id);
  assert.ok(interp.dtMs > 0 && interp.b > interp.a, `two successive states: ${JSON.stringify(interp)}`);
  assert.ok(Math.abs(interp.mid - (interp.a + interp.b) / 2) < 1e-9,
    `half a tick on, the car is drawn half way: ${JSON.stringify(interp)}`);
  const plotted = await page.evaluate((v) => window.dashboard.plots.latest("Speed", v), id);
  assert.ok(plotted > 5, `the Speed plot has the car's speed (${plotted} m/s)`);

  await page.screenshot({ path: path.join(env("PADDOCK_TEST_OUT"), "dashboard.png") });

  // Space brakes to a stop; R puts the lever in reverse, Q moves it down to P.
  await page.keyboard.down(" ");
  await page.waitForFunction((v) => window.dashboard.states.get(v).speedMps < 0.5, id, { timeout: 15000 });
  await page.keyboard.up(" ");
  await page.keyboard.press("r");
  await page.waitForFunction(() => document.querySelector("#inst-gear").textContent === "R", null, { timeout: 10000 });
  await page.keyboard.press("q");
  await page.waitForFunction(() => document.querySelector("#inst-gear").textContent === "P", null, { timeout: 10000 });
  assert.deepEqual(await errorMessages(page), [], "the page shows no errors");
  assert.deepEqual(problems, [], "the console has no errors");
  await context.close();
});

const SCRIPTED_GAMEPAD = () => {
  // A standard-mapping pad whose axes and buttons the test sets through
  // window.testPad; getGamepads() returns a fresh snapshot, as browsers do.
  window.testPad = { axes: [0, 0, 0, 0], buttons: new Array(17).fill(0) };
  navigator.getGamepads = () => [{
    id: "scripted gamepad (STANDARD GAMEPAD)", index: 0, connected: true, mapping: "standard",
    timestamp: performance.now(), axes: [...window.testPad.axes],
    buttons: window.testPad.buttons.map((v) => ({ pressed: v > 0.5, touched: v > 0, value: v })),
  }];
};

test("gamepad: the right trigger drives, the left stick steers the ISO 8855 way", async () => {
  const { page, context, problems } = await openDashboard({ initScript: SCRIPTED_GAMEPAD });
  await createSession(page, "flat", "gamepad-test");
  const id = await spawn(page, "midsize_sedan");
  await takeControl(page);
  await page.waitForFunction(() => document.querySelector("#input-source").textContent.includes("gamepad"));

  // Straight ahead on half throttle.
  await page.evaluate(() => { window.testPad.buttons[7] = 0.5; });
  await page.waitForFunction((v) => {
    const s = window.dashboard.states.get(v);
    return s && s.speedMps > 5;
  }, id, { timeout: 10000 });
  const straight = await tableRow(page, id);
  assert.ok(Math.abs(straight.headingDeg) < 2, `straight ahead the heading stays ${straight.headingDeg} deg`);

  // Stick left: positive steer, the heading rises and the car goes to +y.
  await page.evaluate(() => { window.testPad.axes[0] = -0.6; });
  await page.waitForFunction(([v, h0]) => {
    const s = window.dashboard.states.get(v);
    return s && (s.yawRad * 180) / Math.PI > h0 + 20;
  }, [id, straight.headingDeg], { timeout: 15000 });
  // The vehicle table, which a person reads, is redrawn ten times a second.
  await page.waitForFunction(([v, h0]) => {
    const tr = document.querySelector(`#vehicle-table tbody tr[data-vehicle-id="${v}"]`);
    return tr && Number(tr.children[3].textContent) > h0 + 15;
  }, [id, straight.headingDeg], { timeout: 2000 });
  const left = await tableRow(page, id);
  assert.ok(left.headingDeg > straight.headingDeg + 15,
    `stick left turns left: heading ${straight.headingDeg} -> ${left.headingDeg} deg`);
  assert.ok(left.y > straight.y + 0.2, `stick left moves the car to +y: ${straight.y} -> ${left.y} m`);
  const steerShown = await page.textContent("#inst-steer");
  assert.ok(Number.parseFloat(steerShown) > 0, `the instruments show left (positive) steer: ${steerShown}`);

  // Stick right: the yaw rate reverses.
  await page.evaluate(() => { window.testPad.axes[0] = 0.6; });
  await page.waitForFunction((v) => {
    const s = window.dashboard.states.get(v);
    return s && s.yawRateRadps < -0.05;
  }, id, { timeout: 5000 });

  // Left trigger brakes the car to a stop.
  await page.evaluate(() => { window.testPad.axes[0] = 0; window.testPad.buttons[7] = 0; window.testPad.buttons[6] = 1; });
  await page.waitForFunction((v) => window.dashboard.states.get(v).speedMps < 0.5, id, { timeout: 10000 });

  // Gear buttons act on the press: B is reverse, Y is park (the lever as engaged).
  await page.evaluate(() => { window.testPad.buttons[1] = 1; });
  await page.waitForFunction(() => document.querySelector("#inst-gear").textContent === "R", null, { timeout: 10000 });
  await page.evaluate(() => { window.testPad.buttons[1] = 0; window.testPad.buttons[3] = 1; });
  await page.waitForFunction(() => document.querySelector("#inst-gear").textContent === "P", null, { timeout: 10000 });

  assert.deepEqual(await errorMessages(page), [], "the page shows no errors");
  assert.deepEqual(problems, [], "the console has no errors");
  await context.close();
});

test("not in control: another page holds the lease; refusals are shown", async () => {
  const holder = await openDashboard();
  await createSession(holder.page, "flat", "lease-test");
  await spawn(holder.page, "midsize_sedan");
  await takeControl(holder.page);

  const other = await openDashboard();
  await other.page.click("#session-list li:has-text('lease-test')");
  await other.page.waitForSelector("#vehicle-table tbody tr", { timeout: 10000 });
  await other.page.click("#drive-take");
  await other.page.waitForSelector("#control-status.control-lost", { timeout: 10000 });
  const status = await other.page.textContent("#control-status");
  assert.match(status, /not in control: .*DRIVER lease .* held by connection \d+ \(dashboard\)/);
  assert.ok((await errorMessages(other.page)).some((m) => m.includes("BUSY")), "the BUSY refusal is in Messages");

  // A channel that does not exist: the server's UNKNOWN_KEY is shown.
  await other.page.fill("#plot-channels", "Speed,NoSuchChannel");
  await other.page.click("#plot-apply");
  await other.page.waitForFunction(() =>
    [...document.querySelectorAll("#errors li.error")].some((li) => li.textContent.includes("NoSuchChannel")));
  const shown = await errorMessages(other.page);
  assert.ok(shown.some((m) => /UNKNOWN_KEY: .*"NoSuchChannel" is not a channel/.test(m)), shown.join("\n"));

  // A server that is not there: the page says it cannot connect.
  const lost = await browser.newPage();
  await lost.goto(`${server.url}?ws=ws://127.0.0.1:1/v1/ws`);
  await lost.waitForSelector("#conn-status.pill-off");
  await lost.waitForFunction(() =>
    [...document.querySelectorAll("#errors li.error")].some((li) => li.textContent.includes("cannot connect")));
  assert.match(await lost.textContent("#conn-status"), /disconnected/);
  await lost.close();

  // The holder kept driving throughout.
  assert.match(await holder.page.textContent("#control-status"), /^driving/);
  assert.deepEqual(holder.problems, []);
  await other.context.close();
  await holder.context.close();
});

test("replay: play, pause, seek and fork a recording from the page", async () => {
  const { page, context, problems } = await openDashboard();
  await createSession(page, "flat", "replay-source");
  const id = await spawn(page, "midsize_sedan");
  await takeControl(page);
  await page.keyboard.down("w");
  await page.waitForFunction((v) => window.dashboard.states.get(v).speedMps > 3, id, { timeout: 10000 });
  await page.keyboard.up("w");
  const sourceId = await page.evaluate(() => Number(window.dashboard.session.sessionId));
  await page.click(`#session-list li[data-session-id="${sourceId}"] button`);
  await page.waitForFunction((s) => !document.querySelector(`#session-list li[data-session-id="${s}"]`), sourceId);

  await page.click("#recordings-refresh");
  const row = page.locator("#recording-list li", { hasText: "replay-source" });
  await row.locator("button").click();
  await page.waitForSelector("#replay-bar:not([hidden])", { timeout: 10000 });
  await page.waitForFunction(() => document.querySelector("#replay-pos").textContent.includes("paused"));

  await page.click("#replay-play");
  await page.waitForFunction(() => !document.querySelector("#replay-pos").textContent.includes("paused"));
  await page.click("#replay-pause");
  await page.waitForFunction(() => document.querySelector("#replay-pos").textContent.includes("paused"));

  // Seek to tick 120 (1 s): the stats show it.
  await page.$eval("#replay-seek", (el) => { el.value = "120"; el.dispatchEvent(new Event("change")); });
  await page.waitForFunction(() => /tick 120 \//.test(document.querySelector("#replay-pos").textContent),
    null, { timeout: 10000 });

  await page.click("#replay-fork");
  await page.waitForFunction(() => /fork of #\d+ at 120/.test(document.querySelector("#session-title").textContent),
    null, { timeout: 10000 });
  await page.waitForSelector("#replay-bar[hidden]", { state: "attached" });
  assert.deepEqual(await errorMessages(page), [], "the page shows no errors");
  assert.deepEqual(problems, [], "the console has no errors");
  await context.close();
});
