# SPDX-License-Identifier: BSD-3-Clause
"""The [OC] set-up's sections of dfemu-validate (docs/validation.md,
"[OC]'s own set-up").

configs/ofar-oc.ini is [OC] §V's set-up on the 72-terminal network:
links of 10 and 100 flit times, FIFOs of 32 and 256 flits, 2/1(+1) VCs,
OFAR with the ring and BCM. On it:

  oc-un, oc-adv  PB (vc-ordered, 3/2) against OFAR Ring and Tree with BCM
                 and ECM (2/1(+1)), the Tree without CM, and Ring+BCM
                 with 3/2(+1), also with the misrouting trigger at 0.5,
                 under UN and ADV+2 (= ADV+h here)
                                                   ([OC] Figs. 2, 6-7)
  oc-batch       consumption runs of 2000 packets per terminal, UN and
                 ADV+2, with the longest path and escape entries
                                                  ([OC] Figs. 8, 10, §VI)
  oc-fairness    packets injected per group at offered load 1.0 (Tree
                 against Ring, BCM; Fig. 9(a)), and per router of group 0
                 under ADV+2 at 0.2-0.4 (Fig. 9(b))

The runs take run_dfemu(args, sets, config) from dfemu-validate.
"""
import json
import os

CONFIG = "ofar-oc.ini"
VARIANTS = ["vc-ordered:links.vcs=3/2", "ofar",
            "ofar:routing.escape_net=tree", "ofar:routing.cm=ecm",
            "ofar:routing.escape_net=tree:routing.cm=ecm",
            "ofar:routing.escape_net=tree:routing.cm=none",
            "ofar:links.vcs=3/2+1",
            "ofar:links.vcs=3/2+1:routing.misroute_trigger=0.5"]
NAMES = {"vc-ordered:links.vcs=3/2": "PB (vc-ordered 3/2)",
         "ofar": "Ring+BCM 2/1(+1)",
         "ofar:routing.escape_net=tree": "Tree+BCM 2/1(+1)",
         "ofar:routing.cm=ecm": "Ring+ECM 2/1(+1)",
         "ofar:routing.escape_net=tree:routing.cm=ecm": "Tree+ECM 2/1(+1)",
         "ofar:routing.escape_net=tree:routing.cm=none":
         "Tree, no CM, 2/1(+1)",
         "ofar:links.vcs=3/2+1": "Ring+BCM 3/2(+1)",
         "ofar:links.vcs=3/2+1:routing.misroute_trigger=0.5":
         "Ring+BCM 3/2(+1), trigger 0.5",
         "ofar:routing.cm=none": "Ring, no CM, 2/1(+1)"}
# the consumption runs also have the ring without CM (Fig. 10(b)'s pair)
BATCH = VARIANTS + ["ofar:routing.cm=none"]
RUNS = ("oc-batch", "oc-fairness")
ADV2 = ["traffic.pattern=adversarial", "traffic.shift=2"]
FULL = ["traffic.load=1.0", "traffic.finish=stop"]


def sweeps(quick):
    """dfemu-validate's sweep tuples, on this set-up's config: buffers as
    the config has them (None)."""
    un = "0.2:0.9:0.1" if not quick else "0.3,0.8"
    adv = "0.1:0.5:0.1" if not quick else "0.1,0.4"
    return [("oc-un", VARIANTS, "uniform", un, None, [], CONFIG),
            ("oc-adv", VARIANTS, "adversarial", adv, None,
             ["traffic.shift=2"], CONFIG)]


def split(variant):
    name, *own = variant.split(":")
    return ["routing.algorithm=" + name] + own


def run_batch(args, run_dfemu):
    n = "200" if args.quick else "2000"
    out = {}
    for v in BATCH:
        for label, pat in (("UN", []), ("ADV+2", ADV2)):
            out[(v, label)] = run_dfemu(
                args, split(v) + ["traffic.mode=batch",
                                  "traffic.batch_packets=" + n,
                                  "traffic.drain_timeout_ms=120000"] + pat,
                CONFIG)
    return out


def run_fairness(args, run_dfemu):
    out = {}
    for esc in ("tree", "ring"):
        for label, pat in (("UN", []), ("ADV+2", ADV2)):
            out[(esc, label)] = run_dfemu(
                args, ["routing.escape_net=" + esc] + FULL + pat, CONFIG)
    for esc in ("ring", "tree"):
        for load in ("0.2", "0.3", "0.4"):
            out[(esc, load)] = run_dfemu(
                args, ["routing.escape_net=" + esc, "traffic.load=" + load] +
                ADV2, CONFIG)
    return out


def run(args, run_dfemu, only):
    res = {}
    if not only or "oc-batch" in only:
        res["oc-batch"] = run_batch(args, run_dfemu)
    if not only or "oc-fairness" in only:
        res["oc-fairness"] = run_fairness(args, run_dfemu)
    for k, v in res.items():
        with open(os.path.join(args.out, k + ".json"), "w") as f:
            json.dump({"%s|%s" % kk: vv for kk, vv in v.items()}, f)
    return res


def per_group(r):
    a, g = r["config"]["a"], r["config"]["g"]
    inj = r["injected_per_router"]
    return [sum(inj[i * a:(i + 1) * a]) for i in range(g)]


def exits(r, group, to):
    """The router of group that holds the global link to group to."""
    a = r["config"]["a"]
    for l in r["links"]:
        if (l["class"] == "global" and l["from"] // a == group and
                l["to"] // a == to):
            return l["from"]
    return None


def quantile(hist, q):
    """The hop count under which a fraction q of the packets stay."""
    n = sum(hist.values())
    seen = 0
    for k in sorted(hist, key=int):
        seen += hist[k]
        if seen >= q * n:
            return int(k)
    return 0


def batch_md(f, b, table):
    f.write("## Consumption ([OC] Fig. 8, §VI): time to deliver 2000 "
            "packets per terminal, against PB; longest path (hops) and "
            "the length 99.9 % of packets stay within ([OC] Fig. 10), "
            "most escape entries of a packet\n\n")
    rows = []
    pb = {lb: b.get((VARIANTS[0], lb)) for lb in ("UN", "ADV+2")}
    for v in BATCH:
        row = [NAMES[v]]
        for label in ("UN", "ADV+2"):
            r = b.get((v, label))
            if not r:
                row.append("failed")
                continue
            t = r["batch"]["time_ns"]
            ref = pb[label]["batch"]["time_ns"] if pb[label] else 0
            hist = r["hops"]["histogram"]
            hops = max(int(k) for k in hist)
            esc = max((int(k) for k in
                       r["ofar"]["escapes_per_packet"]), default=0)
            row.append("%.1f ms (%.2fx), %d hops (99.9 %%: %d), %d esc%s" % (
                t / 1e6, t / ref if ref else 0, hops, quantile(hist, 0.999),
                esc,
                "" if r["drained"] else " NOT DRAINED"))
        rows.append(row)
    table(f, ["variant", "UN batch", "ADV+2 batch"], rows)


def fairness_md(f, fa, table):
    f.write("## Fig. 9(a): packets injected per group at offered load "
            "1.0, BCM (`traffic.finish=stop`)\n\n")
    rows = []
    for (esc, label) in (("tree", "UN"), ("ring", "UN"), ("tree", "ADV+2"),
                         ("ring", "ADV+2")):
        r = fa.get((esc, label))
        if not r:
            rows.append([esc, label, "failed", "", ""])
            continue
        g = per_group(r)
        rest = sum(g[1:]) / (len(g) - 1)
        rows.append([esc, label, "%.3f" % r["accepted_load"],
                     ", ".join(str(x) for x in g), "%.3f" % (g[0] / rest)])
    table(f, ["escape", "pattern", "accepted", "group 0 .. 8",
              "group 0 / the others' mean"], rows)
    f.write("## Fig. 9(b): packets injected per router of group 0, "
            "ADV+2, BCM\n\n")
    rows = []
    for esc in ("ring", "tree"):
        for load in ("0.2", "0.3", "0.4"):
            r = fa.get((esc, load))
            if not r:
                rows.append([esc, load, "failed", "", ""])
                continue
            a = r["config"]["a"]
            inj = r["injected_per_router"][:a]
            x = exits(r, 0, 2)
            rest = [v for i, v in enumerate(inj) if i != x]
            rows.append([esc, load, "%.3f" % r["accepted_load"],
                         ", ".join(str(v) for v in inj),
                         "r%s: %.3f" % (x, inj[x] / (sum(rest) / len(rest))
                                        if x is not None and rest else 0)])
    table(f, ["escape", "offered", "accepted", "routers 0 .. a-1",
              "the minimal exit to group 2 / the others' mean"], rows)
    allr = [r for r in fa.values() if r]
    f.write("Lateness p99 over these runs: max %.0f us\n\n" %
            (max(r["lateness_ns"]["p99"] for r in allr) / 1e3))


def summary(args, res, sweep_tables, table):
    path = os.path.join(args.out, "summary-ofar-oc.md")
    with open(path, "w") as f:
        f.write("# dfemu-validate: OFAR on [OC]'s set-up "
                "(configs/ofar-oc.ini)\n\n")
        names = [n for n in ("oc-un", "oc-adv") if n in res]
        if names:
            sweep_tables(f, res, names, VARIANTS)
        if "oc-batch" in res:
            batch_md(f, res["oc-batch"], table)
        if "oc-fairness" in res:
            fairness_md(f, res["oc-fairness"], table)
    return path
