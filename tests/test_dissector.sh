#!/bin/sh
# tools/dfemu.lua, the Wireshark dissector of the inter-instance frames
# (dataplane/encap.h): a pcap with one frame of each type written here
# byte by byte, read back with tshark. Every type is named, the fields
# hold the values written (times in emulated ticks, unsigned u32/u64
# above the signed range, flag bits), the DATA frame's inner Ethernet
# frame is dissected too, a truncated frame, one with a bad magic and
# bodies cut short are marked malformed without a Lua error, and a
# frame of the old version 2 is flagged as of an unknown version.
# Usage: tests/test_dissector.sh (from anywhere); needs tshark, python3.
#
# Root: tshark warns when run as root, and Wireshark's init.lua only runs
# user Lua (-X lua_script:, personal plugins) as root if
# run_user_scripts_when_superuser is true. Debian's
# /usr/share/wireshark/init.lua sets it true, so -X lua_script: works as
# root here; the first check asserts the dissector really was loaded. If
# an install sets it false, the checks run tshark as nobody instead
# (setpriv drops real and effective ids, so Wireshark sees no privileges).
set -u
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. tests/tap.sh
tap_plan 93
LUA=tools/dfemu.lua
PCAP=$TMP/dfemu.pcap

if ! command -v tshark >/dev/null 2>&1; then
	echo "Bail out! tshark not installed (apt-get install tshark)"
	exit 1
fi

# Frames (one per type, in this order):
#  1 DATA, i0->i1, inner EtherType 0x88B5 (the built-in traffic's)
#  2 DATA, i1->i0, due above 2^63, link above 2^31, flags 0x24
#  3 CREDIT, 2 entries, the second due 2^64 - 1
#  4 HELLO, plan hash above 2^63
#  5 STATS, sent[1] = 555
#  6 DONE (padded to the Ethernet minimum, as on the wire)
#  7 SUMMARY, 2 entries from terminal 64
#  8 truncated: 10 of the 16 header bytes
#  9 bad magic
# 10 DATA cut short in its body
# 11 CHANGE: PREPARE table version 5, link r2.p5 down, [faults] event 3
# 12 SYNC, i1->i0, clock 4000000000000 (1 s), CPU 3, 7 checkpoints
#    (generated 900 and 850, in 880 and 800 at the last two)
# 13 SYNC cut short in its body (4 of its 48 bytes)
# 14 DATA of version 2 (the format before emulated ticks)
python3 - "$PCAP" <<'PY'
import struct, sys

def eth(ethertype, payload, pad=False):
    f = (b"\x02\x00\x00\x00\x00\x01" + b"\x02\x00\x00\x00\x00\x02" +
         struct.pack(">H", ethertype) + payload)
    if pad and len(f) < 60:
        f += b"\0" * (60 - len(f))
    return f

def hdr(typ, src, dst, seq, count=0, magic=0x44465054, version=7):
    return struct.pack(">IBBBBIHH", magic, version, typ, src, dst, seq,
                       count, 0)

def data(link, due, gen, st, dt, seq, dr, inter, flits, phase, vc, hops,
         flags, esc_n, eng, tail=0):
    return struct.pack(">IQQIIIHHHBBBBBBHQQ", link, due, gen, st, dt, seq, dr,
                       inter, flits, phase, vc, hops, flags, esc_n, 0, 0,
                       tail, eng)

inner = (b"\x02\x00\x00\x00\x00\x05" + b"\x02\x00\x00\x00\x00\x28" +
         struct.pack(">HIIIIQ", 0x88B5, 0x4446454D, 5, 40, 99, 12345) +
         b"\xab" * 30)
frames = [
    eth(0x88B6, hdr(1, 0, 1, 7) +
        data(123, 6000000, 987654321012, 5, 40, 99, 10, 3, 4, 2, 1, 2,
             0x03, 0, 0, 6014336) + inner),
    eth(0x88B6, hdr(1, 1, 0, 8) +
        data(4000000000, 0x8000000000000010, 42, 17, 3, 100, 1, 0xFFFF, 8,
             1, 2, 3, 0x24, 1, 0x0102030405060708, 2**64 - 2) + inner),
    eth(0x88B6, hdr(2, 1, 0, 3, count=2) +
        struct.pack(">IBBHQ", 17, 0, 0, 4, 4000) +
        struct.pack(">IBBHQ", 4294967295, 1, 0, 8, 2**64 - 1), pad=True),
    eth(0x88B6, hdr(3, 0, 1, 0) +
        struct.pack(">QQQQBB6x", 0xFEDCBA9876543210, 123456789, 0, 0, 1, 1)),
    eth(0x88B6, hdr(4, 0, 1, 12) +
        struct.pack(">8Q", 1000, 990, 2, 800, 790, 1, 3000, 2990) +
        struct.pack(">8Q", 0, 555, 0, 0, 0, 0, 0, 0) +
        struct.pack(">8Q", 444, 0, 0, 0, 0, 0, 0, 0) +
        struct.pack(">8Q", 0, 2220, 0, 0, 0, 0, 0, 0) +
        struct.pack(">8Q", 1776, 0, 0, 0, 0, 0, 0, 0) +
        struct.pack(">8Q", 0, 77, 0, 0, 0, 0, 0, 0) +
        struct.pack(">8Q", 66, 0, 0, 0, 0, 0, 0, 0) +
        struct.pack(">BBHI", 1, 4, 6, 3)),
    eth(0x88B6, hdr(5, 1, 0, 1), pad=True),
    eth(0x88B6, hdr(6, 1, 0, 1, count=2) + struct.pack(">I", 64) +
        struct.pack(">2Q", 3, 0x1234) + struct.pack(">2Q", 5, 0xfedcba9876543210)),
    eth(0x88B6, hdr(1, 0, 1, 9)[:10]),
    eth(0x88B6, hdr(2, 0, 1, 4, magic=0x12345678) + b"\0" * 16, pad=True),
    eth(0x88B6, hdr(1, 0, 1, 10) + b"\0" * 20),
    eth(0x88B6, hdr(7, 0, 1, 0) +
        struct.pack(">IBBH64s", 5, 0, 1, 3, b"r2.p5")),
    eth(0x88B6, hdr(8, 1, 0, 21) +
        struct.pack(">QIIQQQQ", 4000000000000, 3, 7, 900, 850, 880, 800),
        pad=True),
    eth(0x88B6, hdr(8, 0, 1, 22) + struct.pack(">Q", 1)[:4]),
    eth(0x88B6, hdr(1, 0, 1, 11, version=2) +
        data(123, 1500000, 0, 5, 40, 99, 10, 3, 4, 2, 1, 2, 0, 0, 0) +
        inner),
]
with open(sys.argv[1], "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    for i, f in enumerate(frames):
        out.write(struct.pack("<IIII", 1700000000, i, len(f), len(f)))
        out.write(f)
PY
ok $? "pcap with 14 frames written"

TSHARK=tshark
if [ "$(id -u)" -eq 0 ] &&
	! tshark -G protocols -X "lua_script:$LUA" 2>/dev/null |
	grep -q '	dfemu$'; then
	# Lua disabled for root (see the top): tshark as nobody, who must be
	# able to read the script and the capture.
	cp $LUA "$TMP/dfemu.lua"
	LUA=$TMP/dfemu.lua
	chmod a+rx "$TMP" && chmod a+r "$TMP"/*
	TSHARK="setpriv --reuid=nobody --regid=nogroup --clear-groups tshark"
fi
# (-G must come first, or tshark ignores it)
$TSHARK -G protocols -X "lua_script:$LUA" 2>/dev/null | grep -q '	dfemu$'
ok $? "tshark loads $LUA (the dfemu protocol is registered)"

FIELDS="frame.number dfemu.type dfemu.src_instance dfemu.dst_instance
dfemu.seq dfemu.count dfemu.data.link dfemu.data.tail dfemu.data.due dfemu.data.gen
dfemu.data.src_term dfemu.data.dst_term dfemu.data.seq dfemu.data.inter
dfemu.data.vc dfemu.data.flags dfemu.data.flags.measured dfemu.data.eng
dfemu.data.flags.external eth.type frame.protocols dfemu.credit.link
dfemu.credit.vc dfemu.credit.flits dfemu.credit.due dfemu.hello.plan_hash
dfemu.hello.now_ns dfemu.hello.heard dfemu.hello.order dfemu.stats.injected
dfemu.stats.delivered dfemu.stats.sent dfemu.stats.crecv
dfemu.stats.msent dfemu.stats.mrecv dfemu.stats.lost_mask
dfemu.stats.settled dfemu.stats.prepared dfemu.change.n dfemu.change.op
dfemu.change.kind dfemu.change.event dfemu.change.arg
dfemu.stats.gen_stopped dfemu.summary.first_term dfemu.summary.term
dfemu.summary.cnt dfemu.summary.hash dfemu.sync.clock dfemu.sync.cpu
dfemu.sync.ckpts dfemu.sync.gen dfemu.sync.in dfemu.version
dfemu.malformed dfemu.version.unknown _ws.expert.group _ws.col.Info"
E=""
for f in $FIELDS; do E="$E -e $f"; done
# shellcheck disable=SC2086 # $E and $TSHARK are word lists
$TSHARK -X "lua_script:$LUA" -r "$PCAP" -T fields -E separator=/t \
	-E occurrence=a -E aggregator=, $E >"$TMP/f.txt" 2>"$TMP/f.err"
ok $? "tshark with the dissector exits 0"
[ "$(wc -l <"$TMP/f.txt")" -eq 14 ]
ok $? "tshark prints the 14 frames"

# get FRAME FIELD: the FIELD column of FRAME's line (all occurrences,
# comma-separated)
get() {
	c=0
	i=0
	for f in $FIELDS; do
		i=$((i + 1))
		[ "$f" = "$2" ] && c=$i
	done
	awk -F '\t' -v fr="$1" -v c="$c" '$1 == fr { print $c }' "$TMP/f.txt"
}
# is FRAME FIELD VALUE DESCRIPTION
is() {
	got=$(get "$1" "$2")
	[ "$got" = "$3" ] || echo "# frame $1 $2: got '$got', expected '$3'"
	[ "$got" = "$3" ]
	ok $? "$4"
}

t=""
for fr in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do
	t="$t$(get $fr dfemu.type) "
done
[ "$t" = "1 1 2 3 4 5 6   1 7 8 8 1 " ]
ok $? "each frame's type is decoded (got '$t')"
get 3 _ws.col.Info | grep -q '^dfemu CREDIT i1->i0 2 entries$' &&
	get 4 _ws.col.Info | grep -q '^dfemu HELLO i0->i1' &&
	get 5 _ws.col.Info | grep -q '^dfemu STATS i0->i1' &&
	get 6 _ws.col.Info | grep -q '^dfemu DONE i1->i0$' &&
	get 7 _ws.col.Info | grep -q '^dfemu SUMMARY i1->i0' &&
	get 12 _ws.col.Info | grep -q '^dfemu SYNC i1->i0'
ok $? "Info column names the type and the instances"

# DATA
is 1 dfemu.src_instance 0 "DATA: src_instance"
is 1 dfemu.dst_instance 1 "DATA: dst_instance"
is 1 dfemu.seq 7 "DATA: header seq"
is 1 dfemu.data.link 123 "DATA: link"
is 1 dfemu.version 7 "DATA: version 7"
is 1 dfemu.data.due 6000000 "DATA: due (emulated ticks)"
is 1 dfemu.data.tail 6014336 "DATA: tail (emulated ticks)"
is 2 dfemu.data.tail 18446744073709551614 "DATA: tail above 2^63 is unsigned"
is 1 dfemu.data.gen 987654321012 "DATA: gen (u64)"
is 1 dfemu.data.src_term 5 "DATA: src_term"
is 1 dfemu.data.dst_term 40 "DATA: dst_term"
is 1 dfemu.data.seq 99 "DATA: packet seq"
is 1 dfemu.data.vc 1 "DATA: vc"
is 1 dfemu.data.flags 0x03 "DATA: flags"
is 1 dfemu.data.flags.measured 1 "DATA: flags bit measured set"
is 1 dfemu.data.flags.external 0 "DATA: flags bit external clear"
is 2 dfemu.data.due 9223372036854775824 "DATA: due above 2^63 is unsigned"
is 2 dfemu.data.gen 42 "DATA: gen of the second frame"
is 2 dfemu.data.link 4000000000 "DATA: link above 2^31 is unsigned"
is 2 dfemu.data.inter 65535 "DATA: inter"
is 2 dfemu.data.vc 2 "DATA: vc of the second frame"
is 2 dfemu.data.flags 0x24 "DATA: flags of the second frame"
is 2 dfemu.data.flags.measured 0 "DATA: flags bit measured clear"
is 2 dfemu.data.flags.external 1 "DATA: flags bit external set"
is 2 dfemu.data.eng 0x0102030405060708 \
	"DATA: the routing engine's own state, one u64 word"
is 1 _ws.col.Info "dfemu DATA i0->i1 link 123 vc1 src t5 dst t40" \
	"DATA: Info column"
is 1 eth.type 0x88b6,0x88b5 "DATA: the inner Ethernet frame is dissected"
get 1 frame.protocols | grep -q 'dfemu:eth:ethertype'
ok $? "DATA: frame.protocols has dfemu:eth ($(get 1 frame.protocols))"

# CREDIT
is 3 dfemu.count 2 "CREDIT: count"
is 3 dfemu.credit.link 17,4294967295 "CREDIT: the two entries' links"
is 3 dfemu.credit.vc 0,1 "CREDIT: the two entries' VCs"
is 3 dfemu.credit.flits 4,8 "CREDIT: the two entries' flits"
is 3 dfemu.credit.due 4000,18446744073709551615 \
	"CREDIT: the two entries' due (u64, 2^64 - 1 unsigned)"

# HELLO
is 4 dfemu.hello.plan_hash 0xfedcba9876543210 "HELLO: plan_hash (u64)"
is 4 dfemu.hello.now_ns 123456789 "HELLO: now_ns"
is 4 dfemu.hello.heard 1 "HELLO: heard"
is 4 dfemu.hello.order 1 "HELLO: the host's byte order"

# STATS
is 5 dfemu.stats.injected 1000 "STATS: injected"
is 5 dfemu.stats.delivered 990 "STATS: delivered"
is 5 dfemu.stats.sent 0,555,0,0,0,0,0,0 "STATS: sent[], one item per instance"
[ "$(get 5 dfemu.stats.sent | cut -d, -f2)" = 555 ]
ok $? "STATS: sent[1]"
is 5 dfemu.stats.crecv 1776,0,0,0,0,0,0,0 "STATS: crecv[]"
is 5 dfemu.stats.msent 0,77,0,0,0,0,0,0 "STATS: msent[]"
is 5 dfemu.stats.mrecv 66,0,0,0,0,0,0,0 "STATS: mrecv[] (the last array)"
is 5 dfemu.stats.gen_stopped 1 "STATS: gen_stopped"
is 5 dfemu.stats.lost_mask 0x04 "STATS: lost_mask"
is 5 dfemu.stats.settled 3 "STATS: settled"
is 5 dfemu.stats.prepared 6 "STATS: prepared"
is 11 dfemu.change.n 5 "CHANGE: n"
is 11 dfemu.change.op 0 "CHANGE: op"
is 11 dfemu.change.kind 1 "CHANGE: kind"
is 11 dfemu.change.event 3 "CHANGE: the [faults] event made at its due time"
is 11 dfemu.change.arg r2.p5 "CHANGE: arg (a NUL-padded string)"
is 11 _ws.col.Info "dfemu CHANGE i0->i1 PREPARE #5 down r2.p5" "CHANGE: Info column"
get 5 _ws.col.Info | grep -q 'lost 0x04'
ok $? "STATS: the Info column names the instances taken as lost"

# DONE: no body, and the Ethernet padding is not an error
is 6 _ws.col.Info "dfemu DONE i1->i0" "DONE: Info column"
is 6 _ws.expert.group "" "DONE: padding raises no expert info"

# SUMMARY
is 7 dfemu.count 2 "SUMMARY: count"
is 7 dfemu.summary.first_term 64 "SUMMARY: first_term"
is 7 dfemu.summary.term 64,65 "SUMMARY: entries' terminals"
is 7 dfemu.summary.cnt 3,5 "SUMMARY: cnt values"
is 7 dfemu.summary.hash 0x0000000000001234,0xfedcba9876543210 "SUMMARY: set hashes"

# SYNC
is 12 dfemu.seq 21 "SYNC: header seq"
is 12 dfemu.sync.clock 4000000000000 "SYNC: clock (emulated ticks)"
is 12 dfemu.sync.cpu 3 "SYNC: the sender's bridge's CPU"
is 12 dfemu.sync.ckpts 7 "SYNC: checkpoints taken"
is 12 dfemu.sync.gen 900,850 "SYNC: measured generated at the last two checkpoints"
is 12 dfemu.sync.in 880,800 "SYNC: measured in at the last two checkpoints"
is 12 _ws.col.Info "dfemu SYNC i1->i0 clock 4000000000000" \
	"SYNC: Info column"
is 12 _ws.expert.group "" "SYNC: no expert info"
is 12 dfemu.malformed "" "well-formed SYNC: not marked malformed"

# Version 2 (due_ns/age_ns): not dissected as version 7, flagged unknown
is 14 dfemu.version 2 "version 2: the version field"
is 14 dfemu.version.unknown 1 "version 2: flagged as an unknown version"
is 14 dfemu.data.due "" "version 2: no DATA body fields"
get 14 _ws.col.Info | grep -q '\[unknown version\]$'
ok $? "version 2: Info column says unknown version"

# Malformed frames: the expert info dfemu.malformed, whose group is
# PI_MALFORMED (0x07000000), and a note in the Info column.
is 8 dfemu.malformed 1 "truncated header: marked malformed"
is 8 _ws.expert.group 117440512 "truncated header: expert group Malformed"
get 8 _ws.col.Info | grep -q 'Malformed'
ok $? "truncated header: Info column says Malformed"
is 9 dfemu.malformed 1 "bad magic: marked malformed"
is 10 dfemu.malformed 1 "DATA cut short in its body: marked malformed"
is 13 dfemu.malformed 1 "SYNC cut short in its body: marked malformed"
is 13 dfemu.sync.clock "" "SYNC cut short: no clock field"
get 13 _ws.col.Info | grep -q '^dfemu SYNC i0->i1 \[Malformed: SYNC body'
ok $? "SYNC cut short: Info column says Malformed"
is 1 dfemu.malformed "" "well-formed DATA: not marked malformed"

# No Lua error anywhere, in the fields run or the full tree (-V).
# shellcheck disable=SC2086
$TSHARK -X "lua_script:$LUA" -r "$PCAP" -V >"$TMP/v.txt" 2>"$TMP/v.err"
ok $? "tshark -V with the dissector exits 0"
! grep -qi 'lua error' "$TMP/f.txt" "$TMP/f.err" "$TMP/v.txt" "$TMP/v.err"
ok $? "no Lua error in tshark's output or stderr"
grep -q '\[Malformed\] header needs 16 bytes, 10 left' "$TMP/v.txt" &&
	grep -q '\[Malformed\] bad magic 0x12345678' "$TMP/v.txt" &&
	grep -q '\[Malformed\] DATA body needs 62 bytes, 20 left' "$TMP/v.txt" &&
	grep -q '\[Malformed\] SYNC body needs 48 bytes, 4 left' "$TMP/v.txt"
ok $? "the tree has [Malformed] items for the 4 malformed frames"

tap_done
