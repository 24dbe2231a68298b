#!/usr/bin/env python3
"""loopsim against real Node on the same scenarios (issue 6), in one run.

Builds loopsim (release), generates the scale scenarios (bench/gen.py), and
for each runs `loopsim run` and `node` on `loopsim emit-js --scale 0` of the
same file (no real waiting in Node), output to /dev/null, measuring wall time
and peak memory of each process. Prints the figures, and each ratio with its
target (issue 14) and whether it is met. Usage: python3 bench/compare.py
"""
import os
import resource
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "scale")
LOOPSIM = os.path.join(ROOT, "target", "release", "loopsim")
SEED = os.path.join(ROOT, "examples", "phases", "p01-read-callback-schedules-three.loop")


def measure(cmd, stdout=subprocess.DEVNULL, repeat=1):
    """Best wall time (s) of `repeat` runs, and the peak RSS (MB) of that run; each in a fresh child."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "r = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1], 'wb'), stderr=subprocess.DEVNULL)\n"
        "t = time.perf_counter() - t\n"
        "print(t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode)\n"
    )
    target = os.devnull if stdout == subprocess.DEVNULL else stdout
    best = None
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", probe, target] + cmd, capture_output=True, text=True, check=True).stdout.split()
        secs, kb = float(out[0]), int(out[1])
        best = (secs, kb / 1024) if best is None or secs < best[0] else best
    return best


def emit(loop_file):
    js = os.path.join(OUT, os.path.basename(loop_file)[:-5] + ".js")
    with open(js, "w") as f:
        subprocess.run([LOOPSIM, "emit-js", "--scale", "0", loop_file], stdout=f, check=True)
    return js


def main():
    if not shutil.which("node"):
        sys.exit("node is not on PATH")
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen.py"), OUT], check=True, stdout=subprocess.DEVNULL)
    run = lambda f: [LOOPSIM, "run", "--no-race-check", f]
    rows, verdicts = [], []

    def compare(name, loop_file, repeat=1):
        ls = measure(run(loop_file), repeat=repeat)
        nd = measure(["node", emit(loop_file)], repeat=repeat)
        traced = measure(run(loop_file), stdout=os.path.join(OUT, "trace.txt"), repeat=repeat)
        rows.append((name, ls, traced, nd))
        return ls, nd

    path = lambda n: os.path.join(OUT, n)
    empty = path("empty.loop")
    open(empty, "w").close()
    compare("(a) again chain of 1e6 immediates", path("a-immediate-chain.loop"), repeat=3)
    b5_ls, _ = compare("(b) 1e5 timers, distinct delays", path("b-timers-1e5.loop"), repeat=3)
    b6_ls, _ = compare("(b) 1e6 timers, distinct delays", path("b-timers-1e6.loop"), repeat=3)
    compare("(c) 1e5 pool jobs on a pool of 4", path("c-pool-jobs.loop"))
    compare("(d) 1e6 nextTicks and microtasks", path("d-ticks-and-microtasks.loop"), repeat=3)
    compare("seed puzzle P1 (process start to exit)", SEED, repeat=5)
    _, empty_mb = measure(run(empty), repeat=3)

    print(f"{'scenario':42} {'loopsim':>16} {'with trace':>16} {'node':>16} {'time ratio':>11} {'memory ratio':>13}")
    for name, ls, tr, nd in rows:
        print(f"{name:42} {ls[0]:7.3f}s {ls[1]:6.0f}MB {tr[0]:7.3f}s {tr[1]:6.0f}MB {nd[0]:7.3f}s {nd[1]:6.0f}MB"
              f" {nd[0] / ls[0]:9.1f}x {ls[1] / nd[1]:12.2f}")

    e_dense = os.path.getsize(path("e-ten-megabytes.loop")) / 1e6
    e_secs, _ = measure([LOOPSIM, "check", path("e-ten-megabytes.loop")], repeat=3)
    realistic = path("e-realistic.loop")
    e_real = os.path.getsize(realistic) / 1e6
    r_secs, _ = measure([LOOPSIM, "check", realistic], repeat=3)
    print(f"\n(e) parse + check, process start to exit: {e_real:.1f} MB of realistic text (the examples) in {r_secs:.3f}s = "
          f"{e_real / r_secs:.0f} MB/s; {e_dense:.1f} MB of dense statements in {e_secs:.3f}s = {e_dense / e_secs:.0f} MB/s")

    def target(what, ok, figure, goal):
        verdicts.append(ok)
        print(f"{'met   ' if ok else 'MISSED'}  {what:62} {figure:>10}   target {goal}")

    print("\nTargets (issue 14):")
    for name, ls, _, nd in rows:
        ratio = nd[0] / ls[0]
        target(f"{name}: x faster than node", ratio >= 10, f"{ratio:.1f}x", ">= 10x")
    growth = b6_ls[0] / b5_ls[0]
    target("t(1e6 timers) / t(1e5 timers)", growth <= 11, f"{growth:.1f}", "<= 11")
    per_timer = (b6_ls[1] - empty_mb) * 1024 * 1024 / 1e6
    target("bytes of peak RSS per pending timer (1e6, less empty)", per_timer <= 150, f"{per_timer:.0f} B", "<= 150 B")
    dense = e_dense / e_secs
    target("(e) parse + check of dense statements", dense >= 50, f"{dense:.0f} MB/s", ">= 50 MB/s")
    print(f"\n{sum(verdicts)} of {len(verdicts)} targets met on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
