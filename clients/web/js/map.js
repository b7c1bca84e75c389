// The top-down map: the world's ground (surface patches, water, ramps and
// bumps from its preset's terrain, over a metre grid) and every vehicle at
// its pose, drawn at the display's rate. Poses come from 120 Hz StateBatch
// frames; each frame of the display interpolates between the two latest
// batches by sim time, one tick behind the newest, so a car glides rather
// than steps. Axes as ISO 8855: x forward (screen right), y left (screen
// up), heading counter-clockwise.

const SURFACE_COLOURS = {
  tarmac: "#2a2f36", tarmacWet: "#232b36", concrete: "#3a3d42", gravel: "#5a5040",
  grass: "#254a2a", dirt: "#4a3b2a", mud: "#3b2e22", sand: "#6b5d3a", snow: "#7a8794",
  ice: "#5f7f95", siltLoam: "#433a2c",
};

function lerpAngle(a, b, t) {
  let d = b - a;
  while (d > Math.PI) d -= 2 * Math.PI;
  while (d < -Math.PI) d += 2 * Math.PI;
  return a + d * t;
}

export class WorldMap {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.terrain = null;
    this.centre = { x: 20, y: 0 };
    this.pxPerM = 8;
    this.follow = false;
    this.followId = 0;
    this.highlightId = 0;
    this.prev = null;     // { simTime, vehicles: Map(id -> state) }
    this.last = null;
    this.lastArrivalMs = 0;
    // Where each vehicle was drawn on the last frame, world and screen:
    // Map(id -> { x_m, y_m, yaw_rad, sx, sy }).
    this.drawn = new Map();
    this.frames = 0;
    this.installPanZoom();
  }

  setTerrain(terrain) { this.terrain = terrain; }

  clearStates() { this.prev = null; this.last = null; this.drawn.clear(); }

  // One StateBatch: its sim time and its vehicles by id.
  pushState(simTime, vehicles, arrivalMs) {
    const map = new Map();
    for (const v of vehicles) map.set(v.vehicleId, v);
    if (this.last && simTime <= this.last.simTime) {
      // A seek or reset goes back in time: start over from this batch.
      this.prev = null;
    } else {
      this.prev = this.last;
    }
    this.last = { simTime, vehicles: map };
    this.lastArrivalMs = arrivalMs;
  }

  // The interpolated poses for the frame drawn at nowMs.
  poses(nowMs) {
    const out = new Map();
    if (!this.last) return out;
    if (!this.prev) {
      for (const [id, v] of this.last.vehicles) out.set(id, { x: v.xM, y: v.yM, yaw: v.yawRad, v });
      return out;
    }
    const dt = this.last.simTime - this.prev.simTime;
    const elapsed = (nowMs - this.lastArrivalMs) / 1000;
    const t = dt > 0 ? Math.min(1, Math.max(0, elapsed / dt)) : 1;
    for (const [id, b] of this.last.vehicles) {
      const a = this.prev.vehicles.get(id);
      if (!a) { out.set(id, { x: b.xM, y: b.yM, yaw: b.yawRad, v: b }); continue; }
      out.set(id, {
        x: a.xM + (b.xM - a.xM) * t,
        y: a.yM + (b.yM - a.yM) * t,
        yaw: lerpAngle(a.yawRad, b.yawRad, t),
        v: b,
      });
    }
    return out;
  }

  toScreen(x, y) {
    return [this.w / 2 + (x - this.centre.x) * this.pxPerM, this.h / 2 - (y - this.centre.y) * this.pxPerM];
  }

  draw(nowMs) {
    const c = this.canvas;
    const dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth, h = c.clientHeight;
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(h * dpr);
    }
    this.w = w; this.h = h;
    const g = this.ctx;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.fillStyle = "#0f1317";
    g.fillRect(0, 0, w, h);

    const poses = this.poses(nowMs);
    if (this.follow && poses.has(this.followId)) {
      const p = poses.get(this.followId);
      this.centre = { x: p.x, y: p.y };
    }
    this.drawGround(g);
    this.drawGrid(g);
    this.drawTerrain(g);
    this.drawn.clear();
    for (const [id, p] of poses) this.drawVehicle(g, id, p);
    this.drawScale(g);
    this.frames++;
  }

  drawGround(g) {
    const surface = this.terrain && this.terrain.surface;
    g.fillStyle = SURFACE_COLOURS[surface] || "#1b2026";
    g.fillRect(0, 0, this.w, this.h);
  }

  drawGrid(g) {
    // Lines every 1, 5, 10, 50 or 100 m, whichever leaves them 30 px apart or more.
    const steps = [1, 5, 10, 50, 100, 500];
    const step = steps.find((s) => s * this.pxPerM >= 30) || 1000;
    const x0 = this.centre.x - this.w / 2 / this.pxPerM, x1 = this.centre.x + this.w / 2 / this.pxPerM;
    const y0 = this.centre.y - this.h / 2 / this.pxPerM, y1 = this.centre.y + this.h / 2 / this.pxPerM;
    g.lineWidth = 1;
    for (let x = Math.ceil(x0 / step) * step; x <= x1; x += step) {
      const [sx] = this.toScreen(x, 0);
      g.strokeStyle = x === 0 ? "rgba(120,170,230,0.55)" : "rgba(255,255,255,0.07)";
      g.beginPath(); g.moveTo(sx + 0.5, 0); g.lineTo(sx + 0.5, this.h); g.stroke();
    }
    for (let y = Math.ceil(y0 / step) * step; y <= y1; y += step) {
      const [, sy] = this.toScreen(0, y);
      g.strokeStyle = y === 0 ? "rgba(230,120,120,0.55)" : "rgba(255,255,255,0.07)";
      g.beginPath(); g.moveTo(0, sy + 0.5); g.lineTo(this.w, sy + 0.5); g.stroke();
    }
  }

  // A rectangle centred at (x, y), sizeX along heading yaw, sizeY across.
  rect(g, x, y, yaw, sizeX, sizeY) {
    const [sx, sy] = this.toScreen(x, y);
    g.save();
    g.translate(sx, sy);
    g.rotate(-yaw);
    g.beginPath();
    g.rect(-sizeX / 2 * this.pxPerM, -sizeY / 2 * this.pxPerM, sizeX * this.pxPerM, sizeY * this.pxPerM);
    g.restore();
  }

  drawTerrain(g) {
    const t = this.terrain;
    if (!t) return;
    for (const p of t.patches || []) {
      if (p.waterDepth > 0) g.fillStyle = "rgba(60,130,220,0.55)";
      else g.fillStyle = SURFACE_COLOURS[p.surface] || "#333";
      if (p.shape === "circle" || p.radius) {
        const [sx, sy] = this.toScreen(p.x, p.y);
        g.beginPath(); g.arc(sx, sy, p.radius * this.pxPerM, 0, 2 * Math.PI);
      } else {
        this.rect(g, p.x, p.y, 0, p.sizeX, p.sizeY);
      }
      g.fill();
      const label = p.waterDepth > 0 ? `water ${p.waterDepth} m` : p.surface;
      const [lx, ly] = this.toScreen(p.x, p.y);
      if (label && (p.sizeX || 2 * p.radius) * this.pxPerM > 50) {
        g.fillStyle = "rgba(216,222,230,0.7)";
        g.font = "11px system-ui";
        g.textAlign = "center";
        g.fillText(label, lx, ly + ((p.sizeY || 2 * p.radius) / 2) * this.pxPerM - 6);
        g.textAlign = "start";
      }
    }
    for (const r of t.ramps || []) {
      // From its start line along yawDeg: the slope, then the top for `hold`
      // metres (0: for ever, drawn 30 m long).
      const yaw = (r.yawDeg || 0) * Math.PI / 180;
      const cos = Math.cos(yaw), sin = Math.sin(yaw);
      const slopeMid = r.length / 2, top = r.hold > 0 ? r.hold : 30;
      g.fillStyle = r.gradePct >= 0 ? "rgba(240,180,41,0.35)" : "rgba(79,179,255,0.30)";
      this.rect(g, r.x + cos * slopeMid, r.y + sin * slopeMid, yaw, r.length, r.width);
      g.fill();
      g.fillStyle = "rgba(240,180,41,0.15)";
      this.rect(g, r.x + cos * (r.length + top / 2), r.y + sin * (r.length + top / 2), yaw, top, r.width);
      g.fill();
      const [lx, ly] = this.toScreen(r.x + cos * slopeMid, r.y + sin * slopeMid);
      g.fillStyle = "#f5d9a0";
      g.font = "11px system-ui";
      g.fillText(`ramp ${r.gradePct}%`, lx + 4, ly - 4);
    }
    for (const b of t.bumps || []) {
      g.fillStyle = "rgba(239,83,80,0.55)";
      this.rect(g, b.x, b.y, (b.yawDeg || 0) * Math.PI / 180, b.length, b.width);
      g.fill();
    }
  }

  drawVehicle(g, id, p) {
    const v = p.v;
    // The body's footprint from the wheel centres when the state carries
    // wheels, else a mid-size car's.
    let halfL = 2.3, halfW = 0.9;
    const wheels = v.wheels || [];
    if (wheels.length >= 2) {
      let maxX = 0, minX = 0, maxY = 0;
      for (const w of wheels) {
        maxX = Math.max(maxX, w.centerXM); minX = Math.min(minX, w.centerXM);
        maxY = Math.max(maxY, Math.abs(w.centerYM));
      }
      halfL = Math.max(maxX, -minX) + 0.6;
      halfW = Math.max(maxY + 0.15, 0.4);
    }
    const [sx, sy] = this.toScreen(p.x, p.y);
    const s = this.pxPerM;
    const selected = id === this.highlightId;
    g.save();
    g.translate(sx, sy);
    g.rotate(-p.yaw);
    for (const w of wheels) {
      g.save();
      g.translate(w.centerXM * s, -w.centerYM * s);
      g.rotate(-(w.steerRad || 0));
      g.fillStyle = w.inContact === false ? "#777" : "#111";
      g.fillRect(-0.33 * s, -0.12 * s, 0.66 * s, 0.24 * s);
      g.restore();
    }
    g.fillStyle = v.faulted ? "#ef5350" : selected ? "#4fb3ff" : "#c9d3de";
    g.strokeStyle = "#0c1014";
    g.lineWidth = 1.5;
    g.beginPath();
    g.rect(-halfL * s, -halfW * s, 2 * halfL * s, 2 * halfW * s);
    g.globalAlpha = 0.85;
    g.fill();
    g.globalAlpha = 1;
    g.stroke();
    // The nose: a triangle pointing forward, so the heading reads at a glance.
    g.fillStyle = "#0c1014";
    g.beginPath();
    g.moveTo(halfL * s - 2, 0);
    g.lineTo(halfL * s - Math.max(6, 0.9 * s), -Math.max(4, 0.5 * s));
    g.lineTo(halfL * s - Math.max(6, 0.9 * s), Math.max(4, 0.5 * s));
    g.closePath();
    g.fill();
    g.restore();
    // Minimum marker size, so a car stays visible when zoomed far out.
    if (halfL * s < 5) {
      g.fillStyle = selected ? "#4fb3ff" : "#c9d3de";
      g.beginPath(); g.arc(sx, sy, 4, 0, 2 * Math.PI); g.fill();
    }
    g.fillStyle = "#fff";
    g.font = "bold 11px system-ui";
    g.fillText(`#${id}`, sx + halfL * s * 0.2 + 8, sy - halfW * s - 6);
    this.drawn.set(id, { x_m: p.x, y_m: p.y, yaw_rad: p.yaw, sx, sy });
  }

  drawScale(g) {
    const steps = [1, 2, 5, 10, 20, 50, 100, 200, 500];
    const m = steps.find((v) => v * this.pxPerM >= 60) || 1000;
    const px = m * this.pxPerM;
    g.strokeStyle = "#d8dee6"; g.lineWidth = 2;
    g.beginPath(); g.moveTo(12, this.h - 14); g.lineTo(12 + px, this.h - 14); g.stroke();
    g.fillStyle = "#d8dee6"; g.font = "11px system-ui";
    g.fillText(`${m} m`, 12, this.h - 20);
  }

  installPanZoom() {
    const c = this.canvas;
    c.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const k = Math.exp(-ev.deltaY * 0.0015);
      this.pxPerM = Math.min(200, Math.max(0.2, this.pxPerM * k));
    }, { passive: false });
    let drag = null;
    c.addEventListener("mousedown", (ev) => { drag = { x: ev.clientX, y: ev.clientY, c: { ...this.centre } }; });
    window.addEventListener("mouseup", () => { drag = null; });
    window.addEventListener("mousemove", (ev) => {
      if (!drag) return;
      this.centre = {
        x: drag.c.x - (ev.clientX - drag.x) / this.pxPerM,
        y: drag.c.y + (ev.clientY - drag.y) / this.pxPerM,
      };
    });
  }
}
