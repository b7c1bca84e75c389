// Live plots of telemetry channels (uPlot): one small chart per channel
// with a line per vehicle, over the last WINDOW_S seconds of sim time, fed
// by TelemetryBatch rows in the order the TelemetrySchema gave.

const WINDOW_S = 20;
const COLOURS = ["#4fb3ff", "#f0b429", "#47c774", "#ef5350", "#b48cff", "#ff8fb1"];

export class Plots {
  constructor(container) {
    this.container = container;
    this.charts = [];
    this.schema = null;
    this.times = [];
    this.series = new Map(); // vehicle id -> array per channel of value arrays
    this.vehicleOrder = [];
    this.dirty = false;
  }

  // A new subscription's schema: its channels, each with unit.
  setSchema(schema) {
    this.schema = schema;
    this.times = [];
    this.series = new Map();
    this.vehicleOrder = [];
    this.rebuild();
  }

  clear() {
    this.schema = null;
    this.rebuild();
  }

  rebuild() {
    for (const c of this.charts) c.chart.destroy();
    this.charts = [];
    this.container.replaceChildren();
    if (!this.schema) return;
    this.schema.channels.forEach((ch, i) => {
      const div = document.createElement("div");
      div.className = "plot";
      div.dataset.channel = ch.name;
      this.container.appendChild(div);
      this.charts.push({ div, index: i, chart: this.makeChart(div, ch, []) });
    });
  }

  makeChart(div, ch, vehicles) {
    const width = Math.max(300, div.clientWidth - 8);
    const series = [{ label: "sim s" }];
    vehicles.forEach((id, i) => series.push({
      label: `#${id}`, stroke: COLOURS[i % COLOURS.length], width: 1.5, points: { show: false },
    }));
    const opts = {
      title: ch.unit ? `${ch.name} (${ch.unit})` : ch.name,
      width, height: 150,
      scales: { x: { time: false } },
      legend: { live: true },
      axes: [
        { stroke: "#8793a1", grid: { stroke: "rgba(255,255,255,0.06)" }, ticks: { stroke: "#2b3440" } },
        { stroke: "#8793a1", grid: { stroke: "rgba(255,255,255,0.06)" }, ticks: { stroke: "#2b3440" }, size: 56 },
      ],
      series,
    };
    const data = [[]];
    vehicles.forEach(() => data.push([]));
    return new uPlot(opts, data, div);
  }

  // One TelemetryBatch.
  push(simTime, rows) {
    if (!this.schema) return;
    let newVehicle = false;
    for (const r of rows) {
      if (!this.series.has(r.vehicleId)) {
        this.series.set(r.vehicleId, this.schema.channels.map(() => this.times.map(() => null)));
        this.vehicleOrder.push(r.vehicleId);
        newVehicle = true;
      }
    }
    if (this.times.length && simTime < this.times[this.times.length - 1]) {
      // A seek backwards: the window starts again.
      this.times = [];
      for (const [, arrs] of this.series) arrs.forEach((a) => (a.length = 0));
    }
    this.times.push(simTime);
    const seen = new Set();
    for (const r of rows) {
      seen.add(r.vehicleId);
      const arrs = this.series.get(r.vehicleId);
      arrs.forEach((a, i) => a.push(r.values[i] === undefined ? null : r.values[i]));
    }
    for (const [id, arrs] of this.series) if (!seen.has(id)) arrs.forEach((a) => a.push(null));
    // Keep WINDOW_S of sim time.
    let cut = 0;
    while (cut < this.times.length && this.times[cut] < simTime - WINDOW_S) cut++;
    if (cut > 0) {
      this.times.splice(0, cut);
      for (const [, arrs] of this.series) arrs.forEach((a) => a.splice(0, cut));
    }
    if (newVehicle) {
      for (const c of this.charts) {
        c.chart.destroy();
        c.chart = this.makeChart(c.div, this.schema.channels[c.index], this.vehicleOrder);
      }
    }
    this.dirty = true;
  }

  // Redraws at most once per display frame, from the animation loop.
  render() {
    if (!this.dirty) return;
    this.dirty = false;
    for (const c of this.charts) {
      const data = [this.times];
      for (const id of this.vehicleOrder) data.push(this.series.get(id)[c.index]);
      c.chart.setData(data);
    }
  }

  // The latest value of channel `name` for vehicle `id`, or undefined.
  latest(name, id) {
    if (!this.schema) return undefined;
    const i = this.schema.channels.findIndex((c) => c.name === name);
    const arrs = this.series.get(id);
    if (i < 0 || !arrs || !arrs[i].length) return undefined;
    return arrs[i][arrs[i].length - 1];
  }
}
