// The real paddockd for the Node tests: started on free loopback ports (TCP
// and --http) with a temporary database, waited for by its ready lines, and
// stopped with SIGTERM, which must end in its clean-stop line and exit 0.
// ctest passes PADDOCKD (the build's binary), PADDOCK_SOURCE_DIR (presets
// and migrations) and PADDOCK_WEB_ROOT (the staged dashboard).

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const TCP_READY = /\) listening on 127\.0\.0\.1:(\d+)/;
const HTTP_READY = /paddockd: http on 127\.0\.0\.1:(\d+)/;

export function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this test through ctest`);
  return v;
}

export async function startPaddockd({ timeoutMs = 20000, extra = [] } = {}) {
  const source = env("PADDOCK_SOURCE_DIR");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paddock-web-"));
  const args = [
    "serve", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0",
    "--web-root", env("PADDOCK_WEB_ROOT"), "--db", path.join(dir, "paddock.db"),
    "--presets", path.join(source, "presets"), "--migrations", path.join(source, "migrations"),
    ...extra,
  ];
  const proc = spawn(env("PADDOCKD"), args, { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  proc.stdout.on("data", (d) => { log += d; });
  proc.stderr.on("data", (d) => { log += d; });
  const exited = new Promise((resolve) => proc.on("exit", (code, signal) => resolve({ code, signal })));

  const ready = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`paddockd did not say it was listening within ${timeoutMs} ms:\n${log}`)), timeoutMs);
    const check = () => {
      const tcp = log.match(TCP_READY), http = log.match(HTTP_READY);
      if (tcp && http) {
        clearTimeout(timer);
        resolve({ tcpPort: Number(tcp[1]), httpPort: Number(http[1]) });
      }
    };
    proc.stdout.on("data", check);
    proc.stderr.on("data", check);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`paddockd exited (code ${code}, signal ${signal}) before listening:\n${log}`));
    });
  });

  return {
    ...ready,
    url: `http://127.0.0.1:${ready.httpPort}/`,
    dir,
    log: () => log,
    async stop() {
      proc.kill("SIGTERM");
      const killer = setTimeout(() => proc.kill("SIGKILL"), 30000);
      const { code, signal } = await exited;
      clearTimeout(killer);
      fs.rmSync(dir, { recursive: true, force: true });
      if (code !== 0) throw new Error(`paddockd exited with code ${code} (signal ${signal}):\n${log}`);
      if (!log.includes("stopped cleanly")) throw new Error(`paddockd did not stop cleanly:\n${log}`);
    },
  };
}
