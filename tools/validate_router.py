# SPDX-License-Identifier: BSD-3-Clause
"""The router's sections of dfemu-validate (docs/router.md).

  fig9        [DF] Fig. 9: the utilisation of one group's global channels
              under UGAL-L and UGAL-G, worst case at load 0.2, with the
              default router and with the papers' router
  creditloop  the physics of flow control: with 1-flit packets, MIN under
              the worst case puts a whole group's traffic on one global
              channel, whose rate the credit loop bounds at buffer /
              round trip; each configuration with its expected bound

Both take run_dfemu(args, sets) from dfemu-validate: one dfemu run at
the validation's link rate, its JSON report or None.
"""
import csv
import os

# The papers' router, as configs/paper-router.ini has it (output queues
# twice the 64-flit input buffers), with its one-flit-time router delay
# at the validation's rate (64 bytes at 0.025 Gb/s = 20,480 ns)
PAPER = ["router.speedup=2", "router.output_buffer_flits=128",
         "router.latency_ns=20480"]
ROUTERS = (("speedup 1", []), ("papers' router", PAPER))
FLIT_NS = 20480  # one 64-byte flit at 0.025 Gb/s


def group_channels(rep, group=0):
    """Busy fraction of the global channels leaving a group, in [DF]
    Fig. 9's order: the minimal channel (to group + 1), the others on
    its router, then the rest of the group's."""
    c = rep["config"]
    a = c["a"]
    g = c["g"]
    chans = [l for l in rep["links"] if l["class"] == "global"
             and l["from"] // a == group]
    minimal = [l for l in chans if l["to"] // a == (group + 1) % g]
    if len(minimal) != 1:
        return None
    r = minimal[0]["from"]
    same = sorted((l for l in chans if l["from"] == r
                   and l is not minimal[0]), key=lambda l: l["from_port"])
    rest = sorted((l for l in chans if l["from"] != r),
                  key=lambda l: (l["from"], l["from_port"]))
    return [l["busy"] for l in minimal + same + rest]


def late_md(f, reps):
    """One line on the host keeping up in these runs: a section's
    figures from a run that fell behind are the host's, not the
    network's."""
    reps = [r for r in reps if r]
    if not reps:
        return
    behind = sum(1 for r in reps if not r.get("kept_real_time", True))
    f.write("Lateness p99 over these %d runs: max %.0f us; %d not in "
            "real time\n\n" % (len(reps), max(r["lateness_ns"]["p99"]
                                             for r in reps) / 1e3, behind))


def run_fig9(args, run_dfemu, gnuplot):
    """Group 0's channel loads per (router, algorithm), and the reports."""
    out, reps = {}, []
    for label, sets in ROUTERS:
        for alg in ("ugal-l", "ugal-g"):
            rep = run_dfemu(args, ["routing.algorithm=" + alg,
                                   "traffic.pattern=adversarial",
                                   "traffic.load=0.2"] + sets)
            out[(label, alg)] = group_channels(rep) if rep else None
            reps.append(rep)
    path = os.path.join(args.out, "fig9.csv")
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["router", "algorithm", "channel", "busy"])
        for (label, alg), busy in out.items():
            for i, b in enumerate(busy or []):
                w.writerow([label, alg, i, "%.4f" % b])
    for label, _ in ROUTERS:
        dat = os.path.join(args.out, "fig9-%s.dat" %
                           label.split()[0].strip("'"))
        l, g = out[(label, "ugal-l")], out[(label, "ugal-g")]
        if not l or not g:
            continue
        with open(dat, "w") as f:
            for i, (x, y) in enumerate(zip(l, g)):
                f.write("%d %g %g\n" % (i, x, y))
        png = dat[:-4] + ".png"
        gnuplot(['set terminal png size 640,420', 'set output "%s"' % png,
                 'set title "[DF] Fig. 9: group 0\'s global channels, WC '
                 '0.2, %s"' % label,
                 'set xlabel "global channel (0: minimal; 1: same router; '
                 'then the group\'s others)"',
                 'set ylabel "utilisation"', 'set yrange [0:1]',
                 'set style data histogram', 'set style fill solid 0.6',
                 'set boxwidth 0.8', 'set grid ytics',
                 'plot "%s" u 2:xtic(1) t "UGAL-L", "" u 3 t "UGAL-G"'
                 % dat])
    return out, reps


def fig9_md(f, res, table):
    out, reps = res
    f.write("## [DF] Fig. 9: global channel utilisation, WC load 0.2\n\n"
            "Group 0's global channels: the minimal one (to group 1), "
            "the other on its router (h = 2), then the group's six "
            "others (average). Plots: `fig9-speedup.png`, "
            "`fig9-papers.png`.\n\n")
    rows = []
    for (label, alg), busy in out.items():
        if not busy:
            rows.append([label, alg, "no run", "", "", ""])
            continue
        rest = busy[2:]
        rows.append([label, alg, "%.3f" % busy[0], "%.3f" % busy[1],
                     "%.3f" % (sum(rest) / len(rest)),
                     "%.2f" % (busy[1] / max(sum(rest) / len(rest), 1e-9))])
    table(f, ["router", "algorithm", "minimal", "same router",
              "the others (avg)", "same router / others"], rows)
    late_md(f, reps)


def creditloop_cases(quick):
    """(label, buffer, router delay, packet flits, switching, sets)."""
    bufs = (16, 64) if quick else (16, 64, 256)
    cases = [("speedup 1", b, 0, 1, "cut-through", []) for b in bufs]
    cases += [("speedup 1, router delay 50 flit times", b, 50, 1,
               "cut-through", ["router.latency_ns=%d" % (50 * FLIT_NS)])
              for b in bufs[:2]]
    # 8-flit packets: the two switchings' round trips differ
    cases += [("speedup 1, 8-flit packets, " + sw, b, 0, 8, sw,
               ["router.switching=" + sw])
              for sw in ("cut-through", "store-and-forward")
              for b in bufs[1:]]
    return cases


def expected(buf, delay, flits=1, switching="cut-through"):
    """Link rate bound, as a fraction of one flit per flit time: a VC's
    credit round trip is the packet's way to the far router (its head
    flit's serialization, 1, cut-through; all its flits' with
    store-and-forward), the global link (100), its departure from the far
    router's input buffer (all its flits), the credit's way back (100) and
    the far router's delay (docs/design.md, "Time, links and
    credits")."""
    first = 1 if switching == "cut-through" else flits
    rtt = first + 100 + flits + 100 + delay
    return min(1.0, buf / rtt), rtt


def run_creditloop(args, run_dfemu):
    out = []
    for label, buf, delay, flits, sw, sets in creditloop_cases(args.quick):
        rep = run_dfemu(args, [
            "routing.algorithm=min", "traffic.pattern=adversarial",
            "traffic.load=0.5", "traffic.packet_bytes=%d" % (64 * flits),
            "links.flit_bytes=64",
            "links.terminal_latency_ns=%d" % FLIT_NS,
            "links.local_latency_ns=%d" % (10 * FLIT_NS),
            "links.global_latency_ns=%d" % (100 * FLIT_NS),
            "links.local_credit_latency_ns=%d" % (10 * FLIT_NS),
            "links.global_credit_latency_ns=%d" % (100 * FLIT_NS),
            "links.terminal_credit_latency_ns=%d" % FLIT_NS,
            "links.local_buffer_flits=%d" % buf,
            "links.global_buffer_flits=%d" % buf,
            "traffic.source_queue=16", "traffic.finish=stop",
            "traffic.warmup_ms=1000", "traffic.measure_ms=3000"] + sets)
        bound, rtt = expected(buf, delay, flits, sw)
        got = None
        if rep:
            c = rep["config"]
            # a group's a*p terminals share its one minimal global channel
            got = rep["accepted_load"] * c["a"] * c["p"]
        out.append((label, buf, rtt, bound, got, rep))
    return out


def creditloop_md(f, out, table):
    f.write("## The credit loop: a global channel's rate against buffer / "
            "round trip\n\n"
            "1-flit packets, and 8-flit ones in each switching; latencies "
            "in flit times: terminal 1, local 10, global 100, credits the "
            "same. MIN, worst case at 0.5: the group's 8 terminals share "
            "one global channel, so its rate is 8 x the accepted load. "
            "Bound: min(1, buffer / round trip), the round trip the head "
            "(1 flit time, cut-through; the whole packet, "
            "store-and-forward) + 100 + the packet + 100 flit times, plus "
            "any router delay. Target: within 3 %.\n\n")
    rows = []
    for label, buf, rtt, bound, got, rep in out:
        if got is None:
            rows.append([label, str(buf), str(rtt), "%.4f" % bound,
                         "no run", "", ""])
            continue
        ratio = got / bound
        rows.append([label, str(buf), str(rtt), "%.4f" % bound,
                     "%.4f" % got, "%.3f" % ratio,
                     "agree" if abs(ratio - 1) <= 0.03 else "DISAGREE"])
    table(f, ["router", "buffer (flits)", "round trip (flit times)",
              "bound", "measured", "measured / bound", "verdict"], rows)
    late_md(f, [x[5] for x in out])
