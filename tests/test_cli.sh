#!/bin/sh
# dfemu's command line: --help, argument errors, --check summaries and the
# exit codes (0 ok, 2 bad arguments or config), then short real runs of the
# small config through both EAL argument forms, with the JSON read back.
# Usage: tests/test_cli.sh PATH/TO/dfemu   (from the repository root)
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu}
case $DFEMU in # absolute, before changing directory
*/*) DFEMU=$(cd "$(dirname "$DFEMU")" && pwd)/$(basename "$DFEMU") ;;
esac
cd "$(dirname "$0")/.." || exit 1
REF=configs/reference.ini
BAD=tests/data/bad/bad_enum.ini
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
. tests/tap.sh
tap_plan 138

# run ARGS...: stdout in $TMP/out, stderr in $TMP/err, status in $rc
run() {
	"$DFEMU" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
}

# expect_rc WANT DESC
expect_rc() {
	[ "$rc" -eq "$1" ]
	r=$?
	ok $r "$2 exits $1 (got $rc)"
	[ $r -eq 0 ] || sed 's/^/#   /' "$TMP/err" "$TMP/out" | head -10
}

# has FILE TEXT DESC: fixed string TEXT appears in FILE
has() {
	grep -qF -- "$2" "$1"
	r=$?
	ok $r "$3 mentions '$2'"
	[ $r -eq 0 ] || sed 's/^/#   /' "$1" | head -10
}

# --help
run --help
expect_rc 0 "--help"
for w in --config --set --json --check --eal --print-config topology \
	arrangement algorithm load relative absolute "[terminals]" "tA-B" \
	tN.mac tN.ip "[partition]" iN.peerM; do
	has "$TMP/out" "$w" "--help"
done

# docs/config.md is the key table as the binary prints it
run --help-config=markdown
expect_rc 0 "--help-config=markdown"
diff -u docs/config.md "$TMP/out" >"$TMP/diff"
r=$?
ok $r "docs/config.md equals --help-config=markdown (regenerate: dfemu --help-config=markdown >docs/config.md)"
[ $r -eq 0 ] && grep -q '^| `algorithm` | min | ' "$TMP/out"
ok $? "docs/config.md: routing.algorithm's row, default min"
[ $r -eq 0 ] || sed 's/^/#   /' "$TMP/diff" | head -20
run --help-config
expect_rc 0 "--help-config"
has "$TMP/out" "tN.mac" "--help-config"
run --help-config=html
expect_rc 2 "--help-config=html"
has "$TMP/err" "allowed are text and markdown" "--help-config=html: stderr"

# --list-algorithms: the dragonfly's, then the flattened butterfly's
# that the dragonfly has not, are control/algorithms.h's list in order
"$DFEMU" --list-algorithms >"$TMP/algs" &&
	"$DFEMU" --list-algorithms=flatfly >>"$TMP/algs" &&
	cut -f1 "$TMP/algs" | awk '!seen[$0]++' >"$TMP/algs.names" &&
	sed -n 's/^[[:space:]]*X([A-Z_]*, "\([a-z-]*\)".*/\1/p' \
		control/algorithms.h >"$TMP/algs.h" &&
	[ -s "$TMP/algs.h" ] && cmp -s "$TMP/algs.names" "$TMP/algs.h"
ok $? "--list-algorithms (dragonfly, flatfly): control/algorithms.h's $(wc -l <"$TMP/algs.h") algorithms, in its order"
run --list-algorithms=torus
expect_rc 2 "--list-algorithms=torus"

# argument errors
run
expect_rc 2 "no arguments"
has "$TMP/err" "--config" "no arguments: stderr"
run --no-such-option
expect_rc 2 "unknown option"
has "$TMP/err" "--help" "unknown option: stderr"
run --check --config "$REF" stray
expect_rc 2 "stray argument"
has "$TMP/err" "unexpected argument 'stray'" "stray argument: stderr"
run --check --config
expect_rc 2 "--config without a file"

# --check on the reference dragonfly, MIN
run --check --config "$REF"
expect_rc 0 "--check reference.ini"
for w in "36 routers" "72 terminals" "36 global" "54 local" "acyclic" \
	"VCs local    2:" "VCs global   1:"; do
	has "$TMP/out" "$w" "--check reference.ini"
done
[ ! -s "$TMP/err" ]
ok $? "--check reference.ini: nothing on stderr"

# every example config of configs/ passes its own check (an
# instance-split one: its first instance)
for cfg in configs/*.ini; do
	run --check --config "$cfg" --instance 0
	expect_rc 0 "--check $cfg"
done

# --check with VAL: local links 3 VCs, global 2 ([DF] Fig. 7)
run --check --config "$REF" --set routing.algorithm=val
expect_rc 0 "--check --set routing.algorithm=val"
for w in "routing      val:" "VCs local    3:" "VCs global   2:" "acyclic"; do
	has "$TMP/out" "$w" "--check val"
done

# short options
run -k -c "$REF" -s traffic.load=0.5
expect_rc 0 "-k -c FILE -s traffic.load=0.5"

# bad config file: exit 2, message (file:line) on stderr, nothing on stdout
run --check --config "$BAD"
expect_rc 2 "--check bad config"
has "$TMP/err" "$BAD:7:" "bad config: stderr"
has "$TMP/err" "relative | absolute" "bad config: stderr"
[ ! -s "$TMP/out" ]
ok $? "bad config: nothing on stdout"

# bad --set
run --check --config "$REF" --set traffic.load=2
expect_rc 2 "--set traffic.load=2"
has "$TMP/err" "--set traffic.load=2" "--set traffic.load=2: stderr"
has "$TMP/err" "a number from 0 to 1" "--set traffic.load=2: stderr"
run --check --config "$REF" --set traffic.load
expect_rc 2 "--set traffic.load (no value)"
has "$TMP/err" "SECTION.KEY=VALUE" "--set without value: stderr"
run --check --config "$REF" --set links.local_vcs=2 \
	--set routing.algorithm=val
expect_rc 2 "--set links.local_vcs=2 with val"
has "$TMP/err" "too few" "too few VCs: stderr"

# OFAR: the plan shows the escape ring; buffers too small for a bubble rule
run --check --config "$REF" --set routing.algorithm=ofar
expect_rc 0 "--check with ofar"
has "$TMP/out" "escape ring  36 routers" "ofar --check: the escape ring"
has "$TMP/out" "3/2(+1)" "ofar --check: the L/G(+1) VCs"
run --check --config "$REF" --set routing.algorithm=ofar \
	--set links.global_buffer_flits=16
expect_rc 2 "ofar with 16-flit global buffers and BCM"
has "$TMP/err" "global_buffer_flits = 16 is too small" "ofar: names the key"
has "$TMP/err" "allowed: 24 or more" "ofar: says what is allowed"
# the tree escape ([OC] §III-B): the plan shows it and its deadlock
# check; a root group outside the network, or ring = bi with it, refused
run --check --config "$REF" --set routing.algorithm=ofar \
	--set routing.escape_net=tree --set routing.tree_root=4
expect_rc 0 "--check with ofar and the tree escape"
has "$TMP/out" "escape tree  36 routers, root r16 (group 4), 3 levels" \
	"ofar tree --check: the tree"
has "$TMP/out" "8 of its 35 edges global" "ofar tree --check: [OC] Fig. 1(b)"
has "$TMP/out" "dependency graph (70 channels" "ofar tree --check: the deadlock check"
run --check --config "$REF" --set routing.algorithm=ofar \
	--set routing.escape_net=tree --set routing.tree_root=9
expect_rc 2 "ofar tree rooted in group 9 of 0..8"
has "$TMP/err" "--set routing.tree_root=9: [routing] tree_root = 9 is not a group" \
	"tree_root out of range: where and which key"
has "$TMP/err" "allowed: 0..8" "tree_root out of range: what is allowed"
run --check --config "$REF" --set routing.algorithm=ofar \
	--set routing.escape_net=tree --set routing.ring=bi
expect_rc 2 "ofar tree with ring = bi"
has "$TMP/err" "ring = bi applies to the escape ring" "ring = bi with the tree: why"
run --check --config "$REF" --set routing.algorithm=ofar \
	--set routing.escape_net=star
expect_rc 2 "escape_net = star"
has "$TMP/err" "one of ring | tree" "escape_net: the names allowed"

# --print-addresses: JSON, one entry per terminal, unique addresses,
# bindings and overrides shown; a bound terminal is refused at run time
run --print-addresses --config "$REF" --set 'terminals.t3-4=net_tap{t},iface=dft{t}' \
	--set terminals.t5.ip=10.99.0.5
expect_rc 0 "--print-addresses"
python3 - "$TMP/out" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
assert len(a) == 72 and [x["terminal"] for x in a] == list(range(72))
assert len({x["mac"] for x in a}) == 72 and len({x["ip"] for x in a}) == 72
assert a[0]["mac"] == "02:df:00:00:00:00" and a[0]["ip"] == "10.0.0.1"
assert a[71]["router"] == 35 and a[71]["group"] == 8
assert a[3]["port"] == "net_tap3,iface=dft3" and a[4]["port"] == "net_tap4,iface=dft4"
assert a[5]["ip"] == "10.99.0.5" and a[6]["port"] == "builtin"
PY
ok $? "--print-addresses: 72 terminals, unique MACs and IPs, ranges expanded"

# --print-config: every key of --help once, by section, the file's
# values, --set's over them, the defaults for the rest, null when unset
run --print-config --config "$REF" --set traffic.load=0.35 \
	--set capture.file='a "b".pcapng'
expect_rc 0 "--print-config"
"$DFEMU" --help >"$TMP/help"
python3 - "$TMP/out" "$TMP/help" <<'PY'
import json, re, sys
c = json.load(open(sys.argv[1]))
sec, keys = None, []
for line in open(sys.argv[2]):
    # "  [routing] algorithm, on ...:" and the like head lists of values
    # or of keys named by pattern (iN.peerM...), not keys
    m = re.match(r"^  \[(\w+)\](.*)$|^    (\S+) ", line)
    if m and m.group(1):
        sec = m.group(1) if m.group(2) == "" else None
    elif m and sec:
        keys.append((sec, m.group(3)))
heads = re.findall(r"^  \[(\w+)\]$", open(sys.argv[2]).read(), re.M)
assert len(heads) == len(set(heads)), heads  # a section's keys together
got = [(s, k) for s in c for k in c[s]]
assert sorted(got) == sorted(keys), set(got) ^ set(keys)
assert c["topology"]["p"] == 2 and c["topology"]["g"] == 9  # the file
assert c["links"]["global_latency_ns"] == 2000                # the file
assert c["traffic"]["load"] == 0.35                           # --set
assert c["capture"]["file"] == 'a "b".pcapng'                 # --set, text
assert c["routing"]["algorithm"] == "min"                     # default
assert c["links"]["vcs"] is None and c["topology"]["k"] is None  # unset
assert c["run"]["idle_backoff"] == "on" and c["run"]["time_scale"] == 1
PY
ok $? "--print-config: every --help key once, file, --set and default values, text escaped, unset null"
run --print-config --config "$BAD"
expect_rc 2 "--print-config of a bad config"

# missing config file
run --check --config "$TMP/no-such.ini"
expect_rc 2 "missing config file"
has "$TMP/err" "cannot open" "missing config file: stderr"
has "$TMP/err" "$TMP/no-such.ini" "missing config file: stderr"

# --set error names the override, not the file
run --check --config "$REF" --set topology.g=10
expect_rc 2 "--set topology.g=10"
has "$TMP/err" "--set topology.g=10" "cross-field error names the --set"

# Real runs: the small network for 0.1 s, JSON read back with python3.
# jsoncheck FILE: the report's required fields and its accounting.
jsoncheck() {
	python3 - "$1" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
for k in ("config", "offered_load", "accepted_load", "packets", "latency_ns",
          "hops", "paths", "lateness_ns", "credits_conserved", "digest",
          "wall_s"):
    assert k in r, "missing " + k
# a string of 16 hex digits: a JSON number would lose its low bits
assert re.fullmatch("[0-9a-f]{16}", r["digest"]), r["digest"]
for k in ("p", "a", "h", "g", "arrangement", "algorithm", "pattern", "load"):
    assert k in r["config"], "missing config." + k
p = r["packets"]
assert p["injected"] > 0 and p["injected"] == p["delivered"], p
assert p["generated"] == p["injected"] + sum(p["dropped"].values()) + p["not_injected"], p
assert r["credits_conserved"] is True and r["exactly_once"] is True
for k in ("avg", "p50", "p99", "max"):
    assert r["latency_ns"][k] > 0, r["latency_ns"]
assert r["latency_ns"]["p50"] <= r["latency_ns"]["p99"] <= r["latency_ns"]["max"]
# offered 0.3, below saturation: nothing dropped, and what arrives in the
# window is what was offered in it. Measured over the 29 runs here:
# offered 0.2986-0.3014, accepted/offered 0.9999-1.0013, the same on
# every run (emulated time is exact); bounds about 3x that
assert sum(p["dropped"].values()) == 0, p["dropped"]
off, acc = r["offered_load"], r["accepted_load"]
assert abs(off - 0.3) < 0.005 and abs(acc / off - 1) < 0.004, (off, acc)
# fairness counters: one per router, every measured packet injected once
assert len(r["injected_per_router"]) == r["config"]["a"] * r["config"]["g"]
assert sum(r["injected_per_router"]) == p["measured"], (r["injected_per_router"], p)
# the routers' counters: the ones docs/report.md's table names, in the
# objects it gives, and no other number there (one name everywhere)
doc = open("docs/report.md").read().split("### The routers' counters")[1]
doc = doc.split("\n## ")[0]
want = {}
for name, obj in re.findall(r"^\| `(\w+)` \| `(\w+)` \|", doc, re.M):
    want.setdefault(obj, set()).add(name)
assert len(want) == 3, want
for obj, names in want.items():
    got = {k for k, v in r[obj].items() if isinstance(v, int)}
    assert got == names, (obj, got, names)
assert r["hops"]["forwarded"] >= p["delivered"], (r["hops"], p)
# latency by path class: the two classes make up the whole, and each
# histogram holds exactly its class's packets
bp, hist = r["latency_by_path_ns"], r["latency_histogram_ns"]
assert bp["minimal"]["packets"] + bp["nonminimal"]["packets"] == r["latency_ns"]["packets"], bp
assert bp["minimal"]["packets"] == r["paths"]["minimal"], (bp, r["paths"])
for k in ("minimal", "nonminimal"):
    assert sum(c for _, c in hist[k]) == bp[k]["packets"], k
    if bp[k]["packets"]:
        assert bp[k]["min"] <= bp[k]["p50"] <= bp[k]["max"], bp[k]
PY
}
EAL="-l 0-1 --no-pci --no-huge -m 256 --no-shconf --log-level=warning"
SHORT="--set traffic.warmup_ms=20 --set traffic.measure_ms=100"
# shellcheck disable=SC2086
run --config configs/small.ini $SHORT --quiet --json "$TMP/r1.json" \
	--eal $EAL --file-prefix=dfcli1-$$
expect_rc 0 "a run with --eal"
has "$TMP/out" "credits conserved      yes" "run report: credits"
grep -Eq '^  digest {17}[0-9a-f]{16} \(deliveries [0-9a-f]{16}\)$' "$TMP/out"
ok $? "run report: the digest line, 16 hex digits in the column"
jsoncheck "$TMP/r1.json"
ok $? "run with --eal: JSON report complete and accounted for"
# shellcheck disable=SC2086
run $EAL --file-prefix=dfcli2-$$ -- --config configs/small.ini $SHORT \
	--set routing.algorithm=val --quiet --json "$TMP/r2.json"
expect_rc 0 "a run in DPDK's EAL-ARGS -- APP-ARGS form"
jsoncheck "$TMP/r2.json"
ok $? "DPDK form: JSON report complete and accounted for"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["config"]["algorithm"]=="val" and r["paths"]["nonminimal"]>0 else 1)' "$TMP/r2.json"
ok $? "DPDK form: --set routing.algorithm=val took effect"
run --config configs/small.ini $SHORT --eal -l 0 --no-pci --no-huge \
	--no-shconf --file-prefix=dfcli3-$$
expect_rc 3 "EAL with a single lcore"
has "$TMP/err" "worker lcore" "single lcore: says a worker lcore is needed"

# routing along true shortest paths: the 36 HM-not-shortest pairs of the
# reference take two global hops
# shellcheck disable=SC2086
run --config "$REF" $SHORT --quiet --json "$TMP/s.json" \
	--set routing.algorithm=shortest --eal $EAL --file-prefix=dfcli5-$$
[ "$rc" -eq 0 ] && jsoncheck "$TMP/s.json" &&
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); p=r["paths"]; sys.exit(0 if 0 < p["nonminimal"] < p["minimal"] else 1)' "$TMP/s.json"
ok $? "routing.algorithm = shortest: a run completes, accounted for, some packets on two-global shortcuts"

# a flattened butterfly ([FB]): dimension-order MIN on one VC, VAL on
# two; both forward with every packet and credit accounted for
printf '[topology]\ntype = flatfly\nk = 4\nn = 3\n[links]\nterminal_bandwidth_gbps = 0.05\nlocal_bandwidth_gbps = 0.05\nglobal_bandwidth_gbps = 0.05\n' >"$TMP/ff.ini"
run --check --config "$TMP/ff.ini"
expect_rc 0 "--check on a 4-ary 3-flat"
has "$TMP/out" "flattened butterfly, 4-ary 3-flat" "flatfly --check: names the topology"
has "$TMP/out" "VCs global   1: to-destination->vc0" "flatfly MIN: one VC (dimension order)"
run --check --config "$TMP/ff.ini" --set routing.algorithm=val
has "$TMP/out" "VCs global   2: to-intermediate->vc0 to-destination->vc1" "flatfly VAL: one VC per phase, deadlock check passed"
run --check --config "$TMP/ff.ini" --set routing.algorithm=min-ad
has "$TMP/out" "VCs global   2: vc = n-1 - hops remaining" "flatfly MIN AD: n-1 VCs by hops remaining"
run --check --config "$TMP/ff.ini" --set routing.algorithm=clos-ad
has "$TMP/out" "VCs local    4: minimal" "flatfly CLOS AD: 2(n-1) VCs"
has "$TMP/out" "channel-dependency graph acyclic" "flatfly CLOS AD: deadlock check over every adaptive path"
run --check --config "$TMP/ff.ini" --set routing.algorithm=ugal --set topology.n=4
expect_rc 2 "ugal on a 4-ary 4-flat: 6 VCs needed, refused"
has "$TMP/err" "needs 6 VCs per link" "names the VCs it would need"
for shape in "4 3" "4 2"; do
	set -- $shape
	for alg in $("$DFEMU" --list-algorithms=flatfly | cut -f1); do
		# shellcheck disable=SC2086
		run --config "$TMP/ff.ini" $SHORT --quiet --json "$TMP/f.json" \
			--set topology.k=$1 --set topology.n=$2 \
			--set routing.algorithm=$alg --eal $EAL \
			--file-prefix=dfcli7-$$
		[ "$rc" -eq 0 ] && jsoncheck "$TMP/f.json" &&
			grep -q '"type": "flatfly"' "$TMP/f.json"
		ok $? "$1-ary $2-flat, $alg: a run completes, accounted for"
	done
done
# [FB] §3.2 worst case (router R_i's terminals to R_i+1): MIN shares one
# channel among the k terminals, 1/k; VAL spreads it (gross bounds)
wcrc=""
for alg in min val ugal-s clos-ad; do
	# shellcheck disable=SC2086
	run --config "$TMP/ff.ini" --quiet --json "$TMP/wc-$alg.json" \
		--set topology.n=2 --set routing.algorithm=$alg \
		--set traffic.pattern=router-shift --set traffic.load=0.9 \
		--set traffic.finish=stop --set traffic.warmup_ms=50 \
		--set traffic.measure_ms=300 --eal $EAL --file-prefix=dfcli8-$$
	wcrc="$wcrc$rc"
done
[ "$wcrc" = 0000 ] || echo "# worst-case runs' exit statuses: $wcrc"
[ "$wcrc" = 0000 ] &&
	python3 - "$TMP"/wc-min.json "$TMP"/wc-val.json "$TMP"/wc-ugal-s.json "$TMP"/wc-clos-ad.json <<'PY'
import json, sys
mn, *nm = (json.load(open(f)) for f in sys.argv[1:])
a = mn["accepted_load"]
b = [r["accepted_load"] for r in nm]
print("# 4-ary 2-flat, router-shift: MIN %.4f (1/k = 0.25), VAL, UGAL-S, "
      "CLOS AD %s" % (a, b))
assert 0.22 <= a <= 0.27 and min(b) >= 1.4 * a, (a, b)
assert all(r["credits_conserved"] for r in [mn] + nm)
assert all(r["paths"]["nonminimal"] > 0 for r in nm)
PY
ok $? "flattened butterfly worst case: each run exits 0, MIN near 1/k, VAL, UGAL-S and CLOS AD at least 1.4x MIN, credits conserved"

run --check --config "$TMP/ff.ini" --set routing.algorithm=ugal-l
expect_rc 2 "a dragonfly algorithm on a flattened butterfly"
has "$TMP/err" "on a flattened butterfly allowed ([FB] §3.1): min" "flatfly: names the algorithms it has"

# OFAR on wirings whose escape ring needs the searched group order
for arr in circulant nautilus; do
	# shellcheck disable=SC2086
	run --config "$REF" $SHORT --quiet --json "$TMP/o.json" \
		--set topology.arrangement=$arr --set routing.algorithm=ofar \
		--eal $EAL --file-prefix=dfcli6-$$
	[ "$rc" -eq 0 ] && jsoncheck "$TMP/o.json"
	ok $? "arrangement $arr, ofar (searched escape ring): a run completes, accounted for"
done

# every global-link arrangement forwards (the reference shape, MIN and VAL)
for arr in absolute circulant helix nautilus; do
	for alg in min val; do
		# shellcheck disable=SC2086
		run --config "$REF" $SHORT --quiet --json "$TMP/a.json" \
			--set topology.arrangement=$arr \
			--set routing.algorithm=$alg --eal $EAL \
			--file-prefix=dfcli4-$$
		[ "$rc" -eq 0 ] && jsoncheck "$TMP/a.json" &&
			grep -q "\"arrangement\": \"$arr\"" "$TMP/a.json"
		ok $? "arrangement $arr, $alg: a run completes, accounted for"
	done
done

tap_done