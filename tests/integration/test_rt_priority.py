#!/usr/bin/python3
"""paddockd serve --rt-priority (docs/deploy.md "A HIL bench"): the loop
thread, which runs the ticks, at SCHED_FIFO of the given priority, and
every other thread (step threads, the store's writer, libuv's pool) at the
ordinary policy, read from /proc. Where the process may not use real-time
scheduling (no CAP_SYS_NICE, RLIMIT_RTPRIO 0: run as nobody through
setpriv when this runs as root), it refuses to start, exit status 1,
naming what to give it. A priority out of range is refused too.

Run by ctest as integration_rt_priority (PADDOCKD)."""
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PADDOCKD = os.environ.get("PADDOCKD", os.path.join(SOURCE, "build", "bin", "paddockd"))
SCHED_OTHER, SCHED_FIFO = 0, 1


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def args(tmp, priority):
    return [PADDOCKD, "serve", "--rt-priority", str(priority), "--listen", "127.0.0.1:0",
            "--db", os.path.join(tmp, "p.db"), "--presets", os.path.join(SOURCE, "presets"),
            "--migrations", os.path.join(SOURCE, "migrations")]


def policies(pid):
    """{tid: (name, policy, rt_priority)} of pid's threads."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/stat") as f:
            stat = f.read()
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        out[int(tid)] = (name, int(fields[38]), int(fields[37]))  # policy, rt_priority
    return out


def refused(r, priority):
    check(r.returncode == 1, f"exit status 1 without the right to: {r.returncode}\n{r.stdout}{r.stderr}")
    check(f"--rt-priority {priority}: cannot run the loop thread at SCHED_FIFO" in r.stderr
          and f"LimitRTPRIO={priority}" in r.stderr, r.stderr)


def main():
    with tempfile.TemporaryDirectory(prefix="pdk-rt-") as tmp:
        os.chmod(tmp, 0o777)
        log_path = os.path.join(tmp, "log")
        with open(log_path, "w") as log:
            proc = subprocess.Popen(args(tmp, 10), stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        text = ""
        while time.monotonic() < deadline and proc.poll() is None:
            text = open(log_path).read()
            if "SCHED_FIFO priority 10" in text:
                break
            time.sleep(0.02)
        if proc.poll() is not None:
            r = subprocess.CompletedProcess(proc.args, proc.returncode, "", open(log_path).read())
            refused(r, 10)
            print("integration_rt_priority: no right to real-time scheduling here: refused, named")
        else:
            threads = policies(proc.pid)
            proc.send_signal(signal.SIGTERM)
            check(proc.wait(timeout=30) == 0, open(log_path).read())
            check(threads[proc.pid][1:] == (SCHED_FIFO, 10), f"the loop thread: {threads[proc.pid]}")
            others = {t: v for t, v in threads.items() if t != proc.pid}
            check(len(others) >= 3, f"the other threads: {others}")
            check(all(v[1] == SCHED_OTHER for v in others.values()),
                  f"every other thread at the ordinary policy: {others}")
            print(f"integration_rt_priority: the loop at SCHED_FIFO 10, {len(others)} threads "
                  "(" + ", ".join(sorted({v[0] for v in others.values()})) + ") not")

        # Without the right: as nobody, with no capabilities and RLIMIT_RTPRIO 0.
        # nobody may not reach into the build or the checkout (a private
        # folder, often), so the binary and the data it reads are copied
        # into the scratch folder, which nobody may write.
        setpriv = shutil.which("setpriv")
        if os.geteuid() == 0 and setpriv:
            mine = os.path.join(tmp, "nobody")
            os.mkdir(mine)
            os.chmod(mine, 0o777)
            shutil.copy(PADDOCKD, os.path.join(mine, "paddockd"))
            for d in ("presets", "migrations"):
                shutil.copytree(os.path.join(SOURCE, d), os.path.join(mine, d))
            cmd = [os.path.join(mine, "paddockd"), "serve", "--rt-priority", "20", "--listen",
                   "127.0.0.1:0", "--db", os.path.join(mine, "p.db"),
                   "--presets", os.path.join(mine, "presets"),
                   "--migrations", os.path.join(mine, "migrations")]
            r = subprocess.run([setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                "--inh-caps=-all", "--bounding-set=-all", "prlimit", "--rtprio=0:0",
                                "--"] + cmd, capture_output=True, text=True, timeout=30)
            refused(r, 20)
            print("integration_rt_priority: as nobody without RLIMIT_RTPRIO: refused, named")

    r = subprocess.run([PADDOCKD, "serve", "--rt-priority", "100"], capture_output=True, text=True,
                       timeout=30)
    check(r.returncode == 2 and "--rt-priority: '100' is not a whole number 0..99" in r.stderr,
          r.stderr)
    print("integration_rt_priority: a priority out of range is refused")


if __name__ == "__main__":
    main()
