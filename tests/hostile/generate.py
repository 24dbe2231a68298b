#!/usr/bin/env python3
"""Writes tests/hostile/*.loop (`python3 tests/hostile/generate.py`): every
number position of the language at extreme values (0, 1, 2^31-1, 2^31, 2^32,
2^63, 2^64-1, and 2^64, which is refused), each in the main module, after four
callbacks with a far timer pending, and on a clock saturated at its maximum.
`tests/sweep.rs` runs them all; none may panic."""
import os, sys

VALUES = {
    "0": 0,
    "1": 1,
    "2p31m1": 2**31 - 1,
    "2p31": 2**31,
    "2p32": 2**32,
    "2p63": 2**63,
    "2p64m1": 2**64 - 1,
    "2p64": 2**64,  # one past u64: refused with a diagnostic
}

# position -> (statement template with {v} and {c} (context), needs v >= 1)
POSITIONS = {
    "timeout": ('timeout {v} "timeout {c}"', False),
    "timeout-times": ('timeout {v} "timeout {c} {{n}}" times 3 {{ again }}', False),
    "interval": ('interval {v} "interval {c} {{n}}" times 3', False),
    "interval-unbounded": ('interval {v} "interval {c} {{n}}"', False),
    "times": ('immediate "immediate {c} {{n}}" times {v} {{ again }}\n'
              'timeout 1 "timeout {c} {{n}}" times {v} {{ again }}\n'
              'interval 1 "interval {c} {{n}}" times {v}', True),
    # queues that starve the loop until their `times` runs out
    "times-queue": ('then "then {c} {{n}}" times {v} {{ again }}\n'
                    'nextTick "tick {c} {{n}}" times {v} {{ again }}\n'
                    'microtask "microtask {c} {{n}}" times {v} {{ again }}', True),
    "io-after": ('io "io {c}" after {v}', False),
    "submit": ('submit "submit {c}" {v}', False),
    "work": ('work {v}\nimmediate "after work {c}"\ntimeout 1 "timer after work {c}"', False),
    "repeat": ('repeat {v} {{ timeout 1 "repeat {c} {{i}}" }}', False),
}

PREAMBLE = 'timeout 100 "far"\n'

def body(stmt, v, c, indent):
    s = stmt.format(v=v, c=c)
    return "\n".join(indent + line for line in s.split("\n")) + "\n"

def program(stmt, v):
    out = PREAMBLE
    out += body(stmt, v, "main", "")
    for i in range(1, 4):
        out += f'nextTick "n{i}"\n'
    out += 'nextTick "n4" {\n' + body(stmt, v, "late", "  ") + "}\n"
    out += 'timeout 5 "end of time" {\n  work 18446744073709551615\n' + body(stmt, v, "saturated", "  ") + "}\n"
    return out

def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    for pos, (stmt, positive) in POSITIONS.items():
        for name, v in VALUES.items():
            if positive and v == 0:
                continue
            text = f"# {pos} = {v}\n" + program(stmt, v)
            open(os.path.join(outdir, f"{pos}-{name}.loop"), "w").write(text)
    for name, v in VALUES.items():
        # pool size: valid only in 1..=1024; others are refused.
        text = f"# pool = {v}\npool {v}\n" + "".join(f'submit "s{i}" {i % 3}\n' for i in range(6))
        open(os.path.join(outdir, f"pool-{name}.loop"), "w").write(text)
        # an expect block with every field at v, and a prediction by alternatives
        text = (f"# expect turn/at = {v}\n" + 'timeout 0 "t"\nimmediate "i"\nwork ' + str(v) + "\n"
                f'expect {{\n  turn {v} at {v} timers "t"\n  turn {v} at {v} check "i"\n}} or {{\n  at {v} "i"\n  turn {v} "t"\n}}\n')
        open(os.path.join(outdir, f"expect-{name}.loop"), "w").write(text)

main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
