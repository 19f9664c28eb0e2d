#!/bin/sh
# tools/dfemu-topo: the wiring it exports is the emulator's (the
# JSON agrees with dfemu --check's counts and is symmetric), DOT and PNG
# are drawn, the path analysis JSON is complete and self-consistent, and
# bad arguments are refused. The numbers themselves are checked against
# [SP] in tests/test_paths.c.
# Usage: tests/test_topo.sh PATH/TO/dfemu-topo (from the repo root)
set -u
TOPO=${1:?usage: $0 PATH/TO/dfemu-topo}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. tests/tap.sh
tap_plan 17
REF=configs/reference.ini

for arr in relative absolute circulant helix nautilus; do
	"$TOPO" wiring --config $REF --set topology.arrangement=$arr \
		--format json >"$TMP/w.json"
	python3 - "$TMP/w.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
a, h, g = w["a"], w["h"], w["g"]
assert len(w["routers"]) == a * g
links = {}
for r in w["routers"]:
    assert len(r["global"]) == h, r
    for l in r["global"]:
        links[(r["router"], l["port"])] = (l["peer"], l["peer_port"])
pairs = set()
for (r, p), (q, qp) in links.items():
    assert links[(q, qp)] == (r, p)
    pairs.add((min(r // a, q // a), max(r // a, q // a)))
assert len(pairs) == g * (g - 1) // 2
PY
	ok $? "wiring --format json, $arr: every router h global links, symmetric, one per group pair"
done

"$TOPO" wiring --config $REF --format dot >"$TMP/w.dot"
[ "$(grep -c -- ' -- ' "$TMP/w.dot")" -eq $((36 + 9 * 6)) ] &&
	dot -Tcanon "$TMP/w.dot" >/dev/null 2>&1
ok $? "wiring --format dot: 36 global and 54 local edges, valid Graphviz"
"$TOPO" wiring --config $REF --png "$TMP/w.png" >/dev/null &&
	[ "$(head -c 4 "$TMP/w.png" | od -An -c | tr -d ' ')" = "211PNG" ]
ok $? "wiring --png draws a PNG"

"$TOPO" paths --config $REF --pairs --json "$TMP/p.json" --plot "$TMP/plot" \
	>"$TMP/p.txt"
ok $? "paths with --pairs, --json and --plot"
python3 - "$TMP/p.json" "$TMP/plot/sv.png" <<'PY'
import json, os, sys
p = json.load(open(sys.argv[1]))
for k in ("switch_pairs", "hm_not_shortest_pairs", "diameter",
          "mean_shortest", "mean_hm", "mean_valiant"):
    assert k in p, k
n = p["switches"]
pairs = p["pairs"]
assert p["switch_pairs"] == n * (n - 1) == len(pairs)
assert p["hm_not_shortest_pairs"] == sum(1 for s, d, hm, sh, c in pairs if hm > sh)
assert abs(p["mean_shortest"] - sum(x[3] for x in pairs) / len(pairs)) < 1e-6
assert abs(p["mean_hm"] - sum(x[2] for x in pairs) / len(pairs)) < 1e-6
assert p["diameter"] == max(x[3] for x in pairs)
assert sum(p["distance_histogram"].values()) == len(pairs)
# [SP] Fig. 1 on this shape: S_{0,1} -> S_{1,1} is 2 hops while HM is 3
assert [x for x in pairs if x[0] == 1 and x[1] == 5][0][2:4] == [3, 2]
assert len(p["per_switch"]) == n and os.path.getsize(sys.argv[2]) > 1000
PY
ok $? "paths JSON: the required keys, totals equal to its own pair list, Fig. 1's 2-hop pair"

"$TOPO" paths --config $REF --json - | python3 -c 'import json,sys; json.load(sys.stdin)'
ok $? "paths --json - writes JSON on stdout"
"$TOPO" paths --config $REF --set topology.arrangement=circulant \
	--set topology.h=3 --set topology.g=0 >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "circulant needs an even h" "$TMP/err"
ok $? "circulant with odd h: exit 2, says why"
"$TOPO" bogus >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "allowed: wiring, paths, cost" "$TMP/err"
ok $? "an unknown command: exit 2, the commands named"
"$TOPO" wiring --format xml >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "allowed text, json, dot" "$TMP/err"
ok $? "an unknown format: exit 2, the formats named"
# the flattened butterfly: wiring and paths ([FB] §2.2: j differing
# digits, j! shortest routes)
"$TOPO" paths --set topology.type=flatfly --set topology.k=3 \
	--set topology.n=4 --pairs --json - >"$TMP/ff.json"
python3 - "$TMP/ff.json" <<'PY'
import json, math, sys
p = json.load(open(sys.argv[1]))
k, n = p["k"], p["n"]
assert p["type"] == "flatfly" and p["switches"] == k ** (n - 1)
for s, d, dist, cnt in p["pairs"]:
    j = sum((s // k ** x) % k != (d // k ** x) % k for x in range(n - 1))
    assert dist == j and cnt == math.factorial(j), (s, d, dist, cnt)
assert p["diameter"] == n - 1
PY
ok $? "paths on a 3-ary 4-flat: distance = differing digits, j! shortest paths, diameter n-1"

# the cost model ([FB] §4): the counts the papers state
"$TOPO" cost --json "$TMP/c.json" --plot "$TMP/cplot" >"$TMP/c.txt"
ok $? "cost with --json and --plot"
python3 - "$TMP/c.json" "$TMP/cplot/cost.png" <<'PY'
import json, os, sys
c = {s["nodes"]: s for s in json.load(open(sys.argv[1]))["sizes"]}
k = c[1024]
fb, clos, df = k["flattened-butterfly"], k["folded-clos"], k["dragonfly"]
# [FB] §4.3: at 1K, FB 31 x 32 = 992 unidirectional router links, Clos 2048
assert fb["routers"] == 32 and fb["backplane_links"] + fb["cables"] == 1024 + 496, fb
assert clos["backplane_links"] + clos["cables"] == 1024 + 1024, clos
# [DF] §5: up to 1K the dragonfly is the 1-D flattened butterfly
assert df["total"] == fb["total"] and c[512]["dragonfly"]["total"] == c[512]["flattened-butterfly"]["total"]
# [FB] §4.2: 16-ary 4-flat (n' = 3, k' = 61) at 64K; [DF] §5: the
# dragonfly needs about half the global cables of that FB
big = c[65536]
assert big["flattened-butterfly"]["shape"] == "16-ary, n'=3, k'=61"
r = big["dragonfly"]["long_cables"] / big["flattened-butterfly"]["long_cables"]
assert 0.45 < r < 0.6, r
for s in c.values():
    for t in ("dragonfly", "flattened-butterfly", "folded-clos"):
        assert s[t]["per_node"] > 0 and 0 < s[t]["link_share"] < 1
assert os.path.getsize(sys.argv[2]) > 1000
PY
ok $? "cost: the link counts [FB] states at 1K, DF = 1-D FB up to 1K, 16-ary 4-flat and half the global cables at 64K"
"$TOPO" cost --nodes 100,x >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "a comma list of node counts" "$TMP/err"
ok $? "cost --nodes with a bad list: exit 2, says what is allowed"
tap_done
