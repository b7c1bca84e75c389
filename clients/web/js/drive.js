// Driving from the browser: the keyboard and the first connected gamepad
// (the Gamepad API's standard mapping) turned into the driver's controls,
// sent as DbwCommand{throttle_pct, brake_bar, steer_wheel_deg, gear} at a
// steady 50 Hz while the page holds the vehicle's DRIVER lease (docs/dbw.md
// "Two sets of controls", docs/protocol.md "Control leases"). Sending at a
// steady rate, also when nothing changes, keeps a watchdog downstream (the
// kit's 100 ms, a bridge's) fed; a refused command (another connection
// holds the lease, the vehicle is gone) stops the loop and shows why.

export const SEND_HZ = 50;
const STEER_RATE_PER_S = 1.6;    // keyboard: share of full lock per second
const CENTRE_RATE_PER_S = 2.5;   // keyboard: back to centre when released
const PEDAL_RATE_PER_S = 4.0;    // keyboard: pedal travel per second
const KEY_BRAKE_SHARE = 0.6;     // S / down arrow: 60 % of the line limit
const AXIS_DEADZONE = 0.08;
export const GEAR_LETTERS = { 0: "–", 1: "P", 2: "R", 3: "N", 4: "D", 5: "L" };
const LEVER = [1, 2, 3, 4, 5];   // P R N D L, the order Q and E move through

// The standard mapping's buttons (w3c.github.io/gamepad, "Remapping").
const PAD = { A: 0, B: 1, X: 2, Y: 3, LB: 4, RB: 5, LT: 6, RT: 7 };

export class Driver {
  // limits: { lockDeg, maxLineBar } of the driven vehicle's preset.
  constructor(client, ui) {
    this.client = client;
    this.ui = ui;              // { status(kind, text), gear(g), currentGear(), source(text), error(e), info(text) }
    this.target = null;        // { sessionId, vehicleId, lockDeg, maxLineBar }
    this.keys = new Set();
    this.steer = 0;            // -1 right .. 1 left, share of lock
    this.throttle = 0;         // 0..1
    this.brake = 0;            // 0..1 of the line limit
    this.gear = 0;             // GEAR_NONE until a key or button asks for one
    this.gearSent = 0;
    this.timer = null;
    this.lastTickMs = 0;
    this.inFlight = 0;
    this.padButtons = [];
    this.sent = 0;
    this.installKeyboard();
  }

  installKeyboard() {
    const driving = (ev) => this.target && !(ev.target instanceof HTMLInputElement) &&
      !(ev.target instanceof HTMLSelectElement);
    window.addEventListener("keydown", (ev) => {
      if (!driving(ev)) return;
      const k = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
      if (["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", " "].includes(k)) ev.preventDefault();
      if (ev.repeat) return;
      this.keys.add(k);
      if (k === "q") this.shift(-1);
      if (k === "e") this.shift(1);
      if (k === "p") this.setGear(1);
      if (k === "r") this.setGear(2);
      if (k === "n") this.setGear(3);
    });
    window.addEventListener("keyup", (ev) => {
      const k = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
      this.keys.delete(k);
    });
    // A page that loses focus never sees the key-up: let go of everything.
    window.addEventListener("blur", () => this.keys.clear());
  }

  shift(dir) {
    const at = LEVER.indexOf(this.gear || this.ui.currentGear() || 1);
    const next = LEVER[Math.min(LEVER.length - 1, Math.max(0, at + dir))];
    this.setGear(next);
  }

  setGear(g) {
    this.gear = g;
    this.ui.gear(g);
  }

  // Takes the DRIVER lease of the vehicle and starts sending; resolves once
  // the lease is held, rejects (and shows "not in control") otherwise.
  async take(target) {
    this.stop();
    this.target = target;
    this.steer = 0; this.throttle = 0; this.brake = 0; this.gear = 0; this.gearSent = 0;
    try {
      const reply = await this.client.request("controlLease", {
        sessionId: target.sessionId, vehicleId: target.vehicleId, source: 1,
      });
      this.ui.status("driving", `driving #${target.vehicleId} (DRIVER lease held, tick ${reply.tick})`);
    } catch (e) {
      this.target = null;
      this.ui.status("lost", `not in control: ${e.serverMessage || e.message}`);
      throw e;
    }
    this.lastTickMs = performance.now();
    this.timer = setInterval(() => this.tick(), 1000 / SEND_HZ);
  }

  async release() {
    const t = this.target;
    this.stop();
    if (!t) return;
    this.ui.status("none", "not driving");
    await this.client.request("controlLease", {
      sessionId: t.sessionId, vehicleId: t.vehicleId, source: 1, release: true,
    });
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.target = null;
  }

  // Another source took the vehicle, or it went away (a pushed ControlEvent
  // or a refused command): stop sending and say why.
  lost(reason) {
    if (!this.target) return;
    this.stop();
    this.ui.status("lost", `not in control: ${reason}`);
  }

  readGamepad() {
    const pads = navigator.getGamepads ? navigator.getGamepads() : [];
    for (const p of pads) {
      if (!p || !p.connected) continue;
      const axis = p.axes.length > 0 ? p.axes[0] : 0;
      const btn = (i) => (p.buttons[i] ? (typeof p.buttons[i] === "object" ? p.buttons[i] : { value: p.buttons[i], pressed: p.buttons[i] > 0.5 }) : { value: 0, pressed: false });
      const steer = Math.abs(axis) > AXIS_DEADZONE ? -axis : 0;
      const pad = { id: p.id, steer, throttle: btn(PAD.RT).value, brake: btn(PAD.LT).value, pressed: [] };
      for (const [name, i] of Object.entries(PAD)) pad.pressed[name] = btn(i).pressed;
      return pad;
    }
    return null;
  }

  // Gear buttons act on the press, not while held.
  padGears(pad) {
    const was = this.padButtons;
    const now = pad.pressed;
    const edge = (name) => now[name] && !was[name];
    if (edge("A")) this.setGear(4);
    if (edge("B")) this.setGear(2);
    if (edge("X")) this.setGear(3);
    if (edge("Y")) this.setGear(1);
    if (edge("LB")) this.shift(-1);
    if (edge("RB")) this.shift(1);
    this.padButtons = { ...now };
  }

  tick() {
    const now = performance.now();
    const dt = Math.min(0.1, (now - this.lastTickMs) / 1000);
    this.lastTickMs = now;
    const k = this.keys;
    const left = k.has("a") || k.has("ArrowLeft"), right = k.has("d") || k.has("ArrowRight");
    const up = k.has("w") || k.has("ArrowUp"), down = k.has("s") || k.has("ArrowDown");
    const full = k.has(" ");

    // The keyboard ramps its controls, as a driver's foot and hands would.
    if (left !== right) this.steer = Math.max(-1, Math.min(1, this.steer + (left ? 1 : -1) * STEER_RATE_PER_S * dt));
    else this.steer = Math.sign(this.steer) * Math.max(0, Math.abs(this.steer) - CENTRE_RATE_PER_S * dt);
    this.throttle = Math.max(0, Math.min(1, this.throttle + (up ? 1 : -1) * PEDAL_RATE_PER_S * dt));
    const brakeGoal = full ? 1 : down ? KEY_BRAKE_SHARE : 0;
    this.brake = brakeGoal > this.brake ? Math.min(brakeGoal, this.brake + PEDAL_RATE_PER_S * dt)
                                        : Math.max(brakeGoal, this.brake - PEDAL_RATE_PER_S * dt);
    let steer = this.steer, throttle = this.throttle, brake = this.brake, source = "keyboard";
    const pad = this.readGamepad();
    if (pad) {
      this.padGears(pad);
      // The pad drives while any of its controls is off rest; the keyboard otherwise.
      if (pad.steer !== 0 || pad.throttle > 0.02 || pad.brake > 0.02 || !(up || down || left || right || full)) {
        steer = pad.steer; throttle = pad.throttle; brake = pad.brake;
        source = `gamepad: ${pad.id}`;
      }
    }
    this.ui.source(source);
    this.send(steer, throttle, brake);
  }

  send(steer, throttle, brake) {
    const t = this.target;
    if (!t) return;
    const cmd = {
      sessionId: t.sessionId,
      vehicleId: t.vehicleId,
      throttlePct: Math.round(throttle * 1000) / 10,
      brakeBar: Math.round(brake * t.maxLineBar * 10) / 10,
      steerWheelDeg: Math.round(steer * t.lockDeg * 10) / 10,
    };
    if (this.gear && this.gear !== this.gearSent) cmd.gear = this.gear;
    const gearAsked = cmd.gear || 0;
    this.sent++;
    this.client.request("dbwCommand", cmd).then(
      () => { if (gearAsked) this.gearSent = gearAsked; },
      (e) => {
        if (this.target !== t) {
          // Sent before driving stopped (the session closed, the lease was
          // released): its refusal is news, not a fault of the drive.
          this.ui.info(`a command sent before driving stopped: ${e.message}`);
          return;
        }
        if (e.codeName === "BUSY" || e.codeName === "STALE_ID" || e.codeName === "NOT_FOUND" ||
            e.codeName === "UNSUPPORTED" || e.codeName === "CLOSED") {
          this.lost(e.serverMessage || e.message);
        } else if (gearAsked) {
          // A refused gear (the kit's rejects name why) is not asked again
          // until another is chosen.
          this.gearSent = gearAsked;
        }
        this.ui.error(e);
      });
  }
}
