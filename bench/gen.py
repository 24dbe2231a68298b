#!/usr/bin/env python3
"""Writes the scale scenarios of issue 6 into a folder (default target/scale).

(a) an `again` chain of 1,000,000 immediates
(b) 10^5 and 10^6 timers with distinct delays
(c) 100,000 pool jobs on a pool of 4
(d) 1,000,000 interleaved nextTicks and microtasks
(e) a 10 MB .loop file (many small callbacks)

They are generated, not committed. Usage: bench/gen.py [OUT_DIR]
"""
import os
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join("target", "scale")
os.makedirs(out, exist_ok=True)


def write(name, text):
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        f.write(text)


write("a-immediate-chain.loop",
      '# (a) an again chain of 1,000,000 immediates\n'
      'immediate "portion" times 1000000 { again }\n'
      'log "chain scheduled"\n')

for n, name in [(100_000, "b-timers-1e5.loop"), (1_000_000, "b-timers-1e6.loop")]:
    lines = [f"# (b) {n} timers with distinct delays\n"]
    # Delays are a permutation of 1..n, so that timers fire out of scheduling order.
    step = 7919  # a prime not dividing n: i*step mod n visits every residue
    for i in range(n):
        delay = (i * step) % n + 1
        lines.append(f'timeout {delay}\n')
    lines.append('timeout ' + str(n + 1) + ' "last timer"\n')
    write(name, "".join(lines))

write("c-pool-jobs.loop",
      '# (c) 100,000 pool jobs on a pool of 4\n'
      'pool 4\n'
      'repeat 100000 { submit 3 }\n'
      'timeout 75001 "all jobs done"\n')

write("d-ticks-and-microtasks.loop",
      '# (d) 1,000,000 interleaved nextTicks and microtasks\n'
      'nextTick times 500000 { microtask again }\n'
      'timeout 0 "after the drain"\n')

# (e) about 10 MB of varied statements.
chunk = (
    'timeout 5 "t{i}" {\n'
    '  log "timer {i} ran"\n'
    '  nextTick "tick {i}"\n'
    '  then "a" { work 1 } .then "b"\n'
    '}\n'
    'immediate "imm" times 2 { log "immediate {n}" again }\n'
    'io "read" after 3 { log "bytes" }  # a comment\n'
    'submit "fs.stat" 0 { log "stat done" }\n'
)
target = 10 * 1024 * 1024
parts = ["# (e) a 10 MB file\n"]
size = len(parts[0])
k = 0
while size < target:
    block = f"repeat 1 {{\n{chunk}}}\n"
    parts.append(block)
    size += len(block.encode())
    k += 1
write("e-ten-megabytes.loop", "".join(parts))

# (e) also as realistic text: the examples' statements and comments, repeated to 10 MB.
# Directives may come once, before any statement: they are left out, so the text is one valid file.
DIRECTIVES = ("pool ", "module ", "title ", "node ", "rejections ")
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
body = []
for folder, _, files in sorted(os.walk(root)):
    for name in sorted(files):
        if name.endswith(".loop"):
            text = open(os.path.join(folder, name), encoding="utf-8").read()
            text = text.split("\nexpect {")[0]
            if "\nmodule esm" in text:
                continue  # its top-level await needs an ES module, which a block is not
            # Each example in a block of its own, so that names it declares do not clash.
            body.append("repeat 1 {\n")
            body.extend(l for l in text.splitlines(True) if not l.startswith(DIRECTIVES))
            body.append("\n}\n")
body = "".join(body)
write("e-realistic.loop", body * (target // len(body.encode()) + 1))
print(out)
