#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Mutated pcapng captures through tools/dfemu-trace (bad input).

Each of N copies of a capture is truncated, has bytes flipped, or has a
random 32-bit field overwritten (seed 1); dfemu-trace must read it or
refuse it with a message (its die(): SystemExit), never raise or run out
of memory. Usage: trace_mutate.py CAPTURE SCRATCH_FILE N"""
import contextlib
import importlib.machinery
import importlib.util
import io
import random
import sys

loader = importlib.machinery.SourceFileLoader("dftrace", "tools/dfemu-trace")
spec = importlib.util.spec_from_loader("dftrace", loader)
mod = importlib.util.module_from_spec(spec)
loader.exec_module(mod)
src, tmp, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
rnd = random.Random(1)
bad, refused = [], 0
for i in range(n):
    d = bytearray(data)
    k = i % 3
    if k == 0:
        d = d[:rnd.randrange(len(d))]
    elif k == 1:
        for _ in range(rnd.randint(1, 8)):
            d[rnd.randrange(len(d))] = rnd.randrange(256)
    else:
        o = rnd.randrange(0, len(d) - 4) & ~3
        d[o:o + 4] = rnd.randrange(1 << 32).to_bytes(4, "little")
    open(tmp, "wb").write(d)
    try:
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            mod.summarise(tmp, 1, 5)
            mod.path_of(tmp, "0:0")
    except SystemExit:
        refused += 1
    except Exception as e:
        bad.append((i, k, repr(e)[:120]))
print("# %d mutated captures: %d read, %d refused with a message, %d crashed" %
      (n, n - refused - len(bad), refused, len(bad)))
for b in bad[:5]:
    print("#   ", b)
sys.exit(1 if bad else 0)
