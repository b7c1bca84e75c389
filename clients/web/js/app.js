// The dashboard's page logic: connects to paddockd, lists sessions and
// recordings, creates sessions and spawns cars from the catalog's presets,
// subscribes the selected session's state (map, vehicle table,
// instruments), telemetry (plots) and stats (replay bar), drives a vehicle
// (drive.js) and drives a replay (play, pause, seek, speed, fork). Every
// error the server sends is shown in Messages, never dropped.

import { PaddockClient, num } from "./client.js";
import { WorldMap } from "./map.js";
import { Driver, GEAR_LETTERS } from "./drive.js";
import { Plots } from "./plots.js";

const STATE_FIELDS = 1 | 2; // STATE_FIELD_WHEELS | STATE_FIELD_INSTRUMENTS
const PLOT_RATE_HZ = 30;
const $ = (id) => document.getElementById(id);

const app = {
  client: null,
  catalog: { worlds: {}, vehicles: {}, channels: [] },
  sessions: [],
  session: null,         // the selected SessionInfo
  subs: [],              // subscription ids on the selected session
  states: new Map(),     // vehicle id -> latest VehicleState
  presetOf: new Map(),   // "session:vehicle" -> preset, for vehicles this page spawned
  focusId: 0,            // the vehicle the instruments show
  stats: null,
  map: new WorldMap($("map")),
  plots: new Plots($("plots")),
  driver: null,
  seeking: false,
};
window.dashboard = app; // for the console, and for the browser tests to read the map

// ---- messages -------------------------------------------------------------

let lastMessage = { text: "", li: null, count: 0 };
function message(kind, text) {
  const list = $("errors");
  if (text === lastMessage.text && lastMessage.li) {
    lastMessage.count++;
    lastMessage.li.querySelector(".count").textContent = ` ×${lastMessage.count}`;
    return;
  }
  const li = document.createElement("li");
  li.className = kind;
  const t = document.createElement("time");
  t.textContent = new Date().toLocaleTimeString();
  li.append(t, document.createTextNode(text));
  const c = document.createElement("span");
  c.className = "count";
  li.append(c);
  list.prepend(li);
  while (list.children.length > 50) list.lastChild.remove();
  lastMessage = { text, li, count: 1 };
}
function showError(e, context) {
  const text = (context ? context + ": " : "") + (e && e.message ? e.message : String(e));
  message("error", text);
}
window.addEventListener("unhandledrejection", (ev) => showError(ev.reason));

// ---- connection -------------------------------------------------------------

function wsUrl() {
  const q = new URLSearchParams(location.search).get("ws");
  if (q) return q;
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/ws`;
}

async function start() {
  try {
    const res = await fetch("catalog.json");
    if (!res.ok) throw new Error(`catalog.json: HTTP ${res.status}`);
    app.catalog = await res.json();
  } catch (e) {
    showError(e, "the preset catalog did not load");
  }
  fillCatalog();
  try {
    app.client = await PaddockClient.open("proto/paddock/v1/paddock.proto", wsUrl(), "dashboard");
  } catch (e) {
    $("conn-status").textContent = "disconnected";
    showError(e, "cannot connect");
    return;
  }
  const w = app.client.welcome;
  $("conn-status").textContent = "connected";
  $("conn-status").className = "pill pill-on";
  $("server-info").textContent = `paddockd ${w.serverVersion} · ${w.tickRateHz} Hz`;
  app.client.onClose((why) => {
    $("conn-status").textContent = "disconnected";
    $("conn-status").className = "pill pill-off";
    app.driver.lost(why);
    message("error", why);
  });
  app.driver = new Driver(app.client, {
    status: setControlStatus,
    gear: (g) => highlightGear(g),
    currentGear: () => {
      const s = app.states.get(app.driver.target ? app.driver.target.vehicleId : app.focusId);
      return s && s.instruments ? s.instruments.gear : 0;
    },
    source: (text) => { $("input-source").textContent = `input: ${text}`; },
    error: (e) => showError(e, "drive"),
    info: (text) => message("info", text),
  });
  installPushes();
  installControls();
  await refreshSessions();
  await refreshRecordings();
  setInterval(() => refreshSessions().catch((e) => showError(e, "session list")), 2000);
  setInterval(() => refreshRecordings().catch((e) => showError(e, "recordings")), 10000);
  requestAnimationFrame(frame);
}

function fillCatalog() {
  const worlds = $("create-world");
  for (const [name, w] of Object.entries(app.catalog.worlds || {})) {
    const o = new Option(name, name);
    o.title = w.description;
    worlds.add(o);
  }
  const presets = $("spawn-preset");
  for (const [name, v] of Object.entries(app.catalog.vehicles || {})) {
    const o = new Option(name, name);
    o.title = v.description;
    presets.add(o);
  }
  if (app.catalog.vehicles && app.catalog.vehicles.midsize_sedan) presets.value = "midsize_sedan";
  const dl = $("channel-names");
  for (const ch of app.catalog.channels || []) {
    const o = document.createElement("option");
    o.value = ch.name;
    o.label = `${ch.unit} · ${ch.description}`;
    dl.append(o);
  }
}

// ---- pushed frames ------------------------------------------------------------

function installPushes() {
  const c = app.client;
  c.onPush("stateBatch", (b) => {
    if (!app.session || num(b.sessionId) !== num(app.session.sessionId)) return;
    app.map.pushState(b.simTimeS, b.vehicles, performance.now());
    app.states = new Map(b.vehicles.map((v) => [v.vehicleId, v]));
    app.lastTick = num(b.tick);
    if (!app.focusId && b.vehicles.length) app.focusId = b.vehicles[0].vehicleId;
  });
  c.onPush("telemetryBatch", (b) => {
    if (!app.session || num(b.sessionId) !== num(app.session.sessionId)) return;
    app.plots.push(b.simTimeS, b.rows);
  });
  c.onPush("sessionStats", (s) => {
    if (!app.session || num(s.sessionId) !== num(app.session.sessionId)) return;
    app.stats = s;
    updateReplayBar();
  });
  c.onPush("controlEvent", (ev) => {
    const t = app.driver.target;
    if (!t || ev.vehicleId !== t.vehicleId) return;
    if (ev.activeSource !== 1 || ev.preempted === 1) app.driver.lost(ev.reason || "the DRIVER lease was lost");
    message("info", `control of #${ev.vehicleId}: ${ev.reason}`);
  });
  c.onPush("error", (e) => {
    const code = c.codeName(e.code);
    if (code === "CLOSED") {
      // A subscription ended because its session closed: news, not a fault.
      message("info", `${code}: ${e.message}`);
      refreshSessions().catch((err) => showError(err, "session list"));
      return;
    }
    message("error", `${code}: ${e.message}`);
  });
  c.onPush("clientError", (e) => message("error", e.message));
}

// ---- sessions -------------------------------------------------------------------

async function refreshSessions() {
  if (!app.client) return;
  const reply = await app.client.request("sessionList", { offset: 0, limit: 0 });
  app.sessions = reply.sessions;
  if (app.session && !app.sessions.some((s) => num(s.sessionId) === num(app.session.sessionId))) {
    message("info", `session #${num(app.session.sessionId)} is gone`);
    deselect();
  }
  const list = $("session-list");
  list.replaceChildren();
  for (const s of app.sessions) {
    const id = num(s.sessionId);
    const li = document.createElement("li");
    li.dataset.sessionId = id;
    if (app.session && id === num(app.session.sessionId)) {
      li.className = "selected";
      app.session = s;
    }
    const name = document.createElement("span");
    name.className = "grow";
    name.textContent = `#${id} ${s.name || "(unnamed)"} · ${s.worldPreset} · ${s.vehicleCount} car${s.vehicleCount === 1 ? "" : "s"}`;
    const tag = document.createElement("span");
    tag.className = "tag " + (num(s.replayOf) ? "replay" : s.paused ? "paused" : "live");
    tag.textContent = num(s.replayOf) ? `replay of #${num(s.replayOf)}` : s.paused ? "paused" : "live";
    const close = document.createElement("button");
    close.className = "small";
    close.textContent = "close";
    close.title = "close this session";
    close.onclick = (ev) => {
      ev.stopPropagation();
      // Stop driving and watching first: the close ends the subscriptions.
      if (app.session && num(app.session.sessionId) === id) deselect();
      app.client.request("sessionClose", { sessionId: id }).then(
        () => { message("info", `session #${id} closed`); return refreshSessions(); },
        (e) => showError(e, `close session ${id}`));
    };
    li.append(name, tag, close);
    li.onclick = () => selectSession(s).catch((e) => showError(e, `session ${id}`));
    list.append(li);
  }
  updateTitle();
}

function updateTitle() {
  const s = app.session;
  $("session-title").textContent = s
    ? `session #${num(s.sessionId)} ${s.name} · ${s.worldPreset} · tick ${app.lastTick || num(s.tick)}`
    : "no session selected";
}

function deselect() {
  app.session = null;
  app.subs = [];
  app.plotSub = 0;
  app.states.clear();
  app.map.clearStates();
  app.plots.clear();
  $("replay-bar").hidden = true;
  app.driver.stop();
  setControlStatus("none", "not driving");
}

async function selectSession(info) {
  const c = app.client;
  for (const sub of app.subs) {
    c.request("unsubscribe", { subscriptionId: sub }).catch((e) => showError(e, "unsubscribe"));
  }
  if (app.driver.target) await app.driver.release().catch((e) => showError(e, "release"));
  deselect();
  app.session = info;
  app.focusId = 0;
  const sessionId = num(info.sessionId);
  const world = app.catalog.worlds[info.worldPreset];
  app.map.setTerrain(world ? world.terrain : null);
  $("replay-bar").hidden = !num(info.replayOf);
  const state = await c.request("subscribe", { sessionId, rateHz: 120, fields: STATE_FIELDS });
  const stats = await c.request("statsSubscribe", { sessionId, rateHz: 10 });
  app.subs.push(state.subscriptionId, stats.subscriptionId);
  await subscribePlots();
  await refreshSessions();
}

async function subscribePlots() {
  if (!app.session) return;
  const channels = $("plot-channels").value.split(",").map((s) => s.trim()).filter(Boolean);
  if (app.plotSub) {
    const old = app.plotSub;
    app.plotSub = 0;
    app.subs = app.subs.filter((s) => s !== old);
    await app.client.request("unsubscribe", { subscriptionId: old }).catch((e) => showError(e, "unsubscribe"));
  }
  try {
    const schema = await app.client.request("telemetrySubscribe", {
      sessionId: num(app.session.sessionId), rateHz: PLOT_RATE_HZ, channels,
    });
    app.plotSub = schema.subscriptionId;
    app.subs.push(schema.subscriptionId);
    app.plots.setSchema(schema);
  } catch (e) {
    app.plots.clear();
    showError(e, "telemetry");
  }
}

// ---- recordings -------------------------------------------------------------------

async function refreshRecordings() {
  const reply = await app.client.request("recordingList", { offset: 0, limit: 50 });
  const list = $("recording-list");
  list.replaceChildren();
  app.recordings = reply.recordings;
  for (const r of reply.recordings) {
    const id = num(r.sessionId);
    const li = document.createElement("li");
    const name = document.createElement("span");
    name.className = "grow";
    const when = new Date(num(r.startedWallNs) / 1e6).toLocaleString();
    name.textContent = `#${id} ${r.name || "(unnamed)"} · ${r.durationS.toFixed(1)} s`;
    name.title = `${r.worldPreset}; ${r.vehicles.map((v) => v.preset).join(", ") || "no vehicles"}; started ${when}`;
    const tag = document.createElement("span");
    tag.className = "tag" + (r.live ? " live" : "");
    tag.textContent = r.live ? "recording" : r.interrupted ? "interrupted" : `${r.vehicles.length} car${r.vehicles.length === 1 ? "" : "s"}`;
    const play = document.createElement("button");
    play.className = "small";
    play.textContent = "replay";
    play.onclick = () => openReplay(id).catch((e) => showError(e, `replay of ${id}`));
    li.append(name, tag, play);
    list.append(li);
  }
  if (reply.total > reply.recordings.length) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = `${reply.total - reply.recordings.length} older not shown`;
    list.append(li);
  }
}

async function openReplay(recordingId) {
  const created = await app.client.request("replayOpen", { sessionId: recordingId, speed: 1, paused: true });
  $("replay-speed").value = "1";
  message("info", `replay of recording #${recordingId} opened as session #${num(created.session.sessionId)}`);
  await refreshSessions();
  await selectSession(created.session);
}

function updateReplayBar() {
  const s = app.stats;
  if (!s || !num(s.replayOf) || app.seeking) return;
  $("replay-bar").hidden = false;
  const seek = $("replay-seek");
  seek.max = String(num(s.replayEndTick));
  if (document.activeElement !== seek) seek.value = String(num(s.tick));
  $("replay-pos").textContent = `${num(s.simTimeS) ? s.simTimeS.toFixed(2) : "0.00"} s · tick ${num(s.tick)} / ${num(s.replayEndTick)}${s.paused ? " · paused" : ""}`;
  $("replay-play").disabled = !s.paused;
  $("replay-pause").disabled = s.paused;
}

async function control(action) {
  const sessionId = num(app.session.sessionId);
  return app.client.request("sessionControl", { sessionId, ...action });
}

// ---- driving ------------------------------------------------------------------------

function setControlStatus(kind, text) {
  const el = $("control-status");
  el.className = `control-status control-${kind}`;
  el.textContent = text;
}

function highlightGear(g) {
  for (const b of $("gear-buttons").querySelectorAll("button")) {
    b.classList.toggle("asked", Number(b.dataset.gear) === g);
  }
}

// The steering and brake full scale for a vehicle: its preset's, when this
// page spawned it or a recording names it; else the smallest of every
// preset's, which every vehicle takes.
async function limitsFor(sessionId, vehicleId) {
  let preset = app.presetOf.get(`${sessionId}:${vehicleId}`);
  if (!preset) {
    try {
      const reply = await app.client.request("recordingList", { offset: 0, limit: 0 });
      const rec = reply.recordings.find((r) => num(r.sessionId) === sessionId);
      const v = rec && rec.vehicles.find((x) => x.vehicleId === vehicleId);
      if (v) preset = v.preset;
    } catch (e) {
      showError(e, "the vehicle's preset");
    }
  }
  const all = Object.values(app.catalog.vehicles || {});
  const p = preset && app.catalog.vehicles[preset];
  if (p) return { lockDeg: p.lockDeg, maxLineBar: p.maxLineBar };
  return {
    lockDeg: Math.min(...all.map((x) => x.lockDeg), 90),
    maxLineBar: Math.min(...all.map((x) => x.maxLineBar), 60),
  };
}

async function takeControl() {
  if (!app.session) { message("error", "select a session first"); return; }
  const vehicleId = app.focusId;
  if (!vehicleId) { message("error", "no vehicle to drive: spawn one first"); return; }
  const sessionId = num(app.session.sessionId);
  const limits = await limitsFor(sessionId, vehicleId);
  await app.driver.take({ sessionId, vehicleId, ...limits });
  $("map").focus();
}

// ---- controls -----------------------------------------------------------------------

function installControls() {
  $("create-form").onsubmit = (ev) => {
    ev.preventDefault();
    app.client.request("sessionCreate", { name: $("create-name").value, worldPreset: $("create-world").value })
      .then(async (created) => {
        message("info", `session #${num(created.session.sessionId)} created`);
        await refreshSessions();
        await selectSession(created.session);
      })
      .catch((e) => showError(e, "create session"));
  };
  $("spawn-form").onsubmit = (ev) => {
    ev.preventDefault();
    if (!app.session) { message("error", "select a session first"); return; }
    const sessionId = num(app.session.sessionId);
    const preset = $("spawn-preset").value;
    app.client.request("vehicleSpawn", {
      sessionId, preset, xM: Number($("spawn-x").value), yM: Number($("spawn-y").value), gear: 4,
    }).then((sp) => {
      app.presetOf.set(`${sessionId}:${sp.vehicleId}`, preset);
      app.focusId = sp.vehicleId;
      message("info", `spawned ${preset} as #${sp.vehicleId}`);
    }, (e) => showError(e, "spawn"));
  };
  $("recordings-refresh").onclick = () => refreshRecordings().catch((e) => showError(e, "recordings"));
  $("plot-apply").onclick = () => subscribePlots();
  $("drive-take").onclick = () => takeControl().catch((e) => showError(e, "take control"));
  $("drive-release").onclick = () => app.driver.release().catch((e) => showError(e, "release"));
  for (const b of $("gear-buttons").querySelectorAll("button")) {
    b.onclick = () => app.driver.setGear(Number(b.dataset.gear));
  }
  $("map-follow").onchange = (ev) => { app.map.follow = ev.target.checked; };
  $("vehicle-table").querySelector("tbody").onclick = (ev) => {
    const tr = ev.target.closest("tr");
    if (tr) app.focusId = Number(tr.dataset.vehicleId);
  };

  $("replay-play").onclick = () => control({ resume: true }).catch((e) => showError(e, "play"));
  $("replay-pause").onclick = () => control({ pause: true }).catch((e) => showError(e, "pause"));
  $("replay-speed").onchange = (ev) =>
    control({ speed: Number(ev.target.value) }).catch((e) => showError(e, "speed"));
  $("replay-seek").onchange = (ev) => {
    app.seeking = true;
    control({ seek: Number(ev.target.value) })
      .then(() => app.map.clearStates())
      .catch((e) => showError(e, "seek"))
      .finally(() => { app.seeking = false; });
  };
  $("replay-fork").onclick = () => {
    const s = app.session;
    const tick = app.stats ? num(app.stats.tick) : num(s.tick);
    app.client.request("forkRequest", { sessionId: num(s.replayOf), tick, name: `fork of #${num(s.replayOf)} at ${tick}` })
      .then(async (created) => {
        message("info", `forked recording #${num(s.replayOf)} at tick ${tick} as session #${num(created.session.sessionId)}`);
        await refreshSessions();
        await selectSession(created.session);
      })
      .catch((e) => showError(e, "fork"));
  };
}

// ---- the display's frame --------------------------------------------------------------

let lastPanelMs = 0;
let lastPlotMs = 0;
function frame(nowMs) {
  app.map.highlightId = app.driver.target ? app.driver.target.vehicleId : app.focusId;
  app.map.followId = app.map.highlightId;
  app.map.draw(nowMs);
  if (nowMs - lastPlotMs > 66) { app.plots.render(); lastPlotMs = nowMs; }
  if (nowMs - lastPanelMs > 100) { updatePanels(); lastPanelMs = nowMs; }
  requestAnimationFrame(frame);
}

function updatePanels() {
  updateTitle();
  const tbody = $("vehicle-table").querySelector("tbody");
  const rows = [];
  for (const [id, v] of app.states) {
    const tr = document.createElement("tr");
    tr.dataset.vehicleId = id;
    if (id === app.map.highlightId) tr.className = "driven";
    const hdg = ((v.yawRad * 180) / Math.PI).toFixed(1);
    for (const text of [`#${id}`, v.xM.toFixed(1), v.yM.toFixed(1), hdg, (v.speedMps * 3.6).toFixed(1)]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.append(td);
    }
    rows.push(tr);
  }
  tbody.replaceChildren(...rows);

  const v = app.states.get(app.map.highlightId);
  const inst = v && v.instruments;
  $("inst-speed").textContent = v ? (Math.abs(v.speedMps) * 3.6).toFixed(0) : "–";
  $("inst-rpm").textContent = inst ? inst.engineRpm.toFixed(0) : "–";
  $("inst-rpm-bar").style.width = inst ? `${Math.min(100, (inst.engineRpm / 7000) * 100)}%` : "0";
  const gear = inst ? GEAR_LETTERS[inst.gear] || "?" : "–";
  $("inst-gear").textContent = inst && inst.gear === 4 && inst.gearNumber ? `D${inst.gearNumber}` : gear;
  $("inst-throttle").style.width = inst ? `${Math.min(100, inst.throttlePct)}%` : "0";
  const limit = app.driver && app.driver.target ? app.driver.target.maxLineBar : 150;
  $("inst-brake").style.width = inst ? `${Math.min(100, (inst.brakeBar / limit) * 100)}%` : "0";
  $("inst-steer").textContent = inst ? `${inst.steerWheelDeg.toFixed(0)}°` : "–";
  for (const b of $("gear-buttons").querySelectorAll("button")) {
    b.classList.toggle("active", inst ? Number(b.dataset.gear) === inst.gear : false);
  }
}

start();
