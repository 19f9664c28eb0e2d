-- dfemu.lua: Wireshark dissector for the frames that carry a partitioned
-- dragonfly's global links between dfemu instances (docs/instances.md).
-- The format is dataplane/encap.h, which is the source of
-- truth: Ethernet II with EtherType 0x88B6, then struct dp_encap_hdr
-- (16 bytes, big-endian), then the body of the frame's type. Times
-- (DATA due and gen, CREDIT due, SYNC clock) are emulated ticks, 1/4 ns
-- of the run's emulated time, which starts at 0 in every instance.
--
--   DATA     struct dp_encap_data (46 bytes), then the emulated frame,
--            unchanged (handed to Wireshark's Ethernet dissector)
--   CREDIT   count x struct dp_encap_credit (16 bytes each)
--   HELLO    struct dp_encap_hello (40 bytes)
--   STATS    struct dp_encap_stats (456 bytes, DP_MAX_INSTANCES = 8)
--   DONE     no body
--   SUMMARY  struct dp_encap_summary (4 bytes), then count x 2 u64
--   CHANGE   struct dp_encap_change (72 bytes)
--   SYNC     struct dp_encap_sync (48 bytes: the sender's clock, its
--            bridge's CPU, its checkpoints taken and its measured
--            packets generated and in at the last two)
--
-- Usage, for one run:
--   tshark -X lua_script:tools/dfemu.lua -r file.pcap
--   wireshark -X lua_script:tools/dfemu.lua file.pcap
-- or for good: copy this file into ~/.local/lib/wireshark/plugins/
-- (Wireshark >= 2.5; older ones read ~/.wireshark/plugins/). Display
-- filters use the "dfemu." fields, e.g.
--   tshark -X lua_script:tools/dfemu.lua -r f.pcap -Y 'dfemu.type == 2'
--   ... -T fields -e dfemu.data.link -e dfemu.data.vc -e dfemu.data.flits
-- Malformed frames (too short, wrong magic or version, a body shorter
-- than its type needs) are marked with the expert info dfemu.malformed
-- (filter "dfemu.malformed") instead of raising a Lua error.

local ETHERTYPE = 0x88B6
local MAGIC = 0x44465054 -- "DFPT"
local VERSION = 7
local MAX_INSTANCES = 8

local HDR_LEN = 16
local DATA_LEN = 62
local CREDIT_LEN = 16
local HELLO_LEN = 40
local STATS_LEN = 8 * 8 + 6 * MAX_INSTANCES * 8 + 8
local SUMMARY_LEN = 4
local SUMMARY_ENTRY_LEN = 16
local CHANGE_LEN = 72
local SYNC_LEN = 48

local T_DATA, T_CREDIT, T_HELLO, T_STATS, T_DONE, T_SUMMARY, T_CHANGE,
	T_SYNC = 1, 2, 3, 4, 5, 6, 7, 8

local type_names = {
	[T_DATA] = "DATA",
	[T_CREDIT] = "CREDIT",
	[T_HELLO] = "HELLO",
	[T_STATS] = "STATS",
	[T_DONE] = "DONE",
	[T_SUMMARY] = "SUMMARY",
	[T_CHANGE] = "CHANGE",
	[T_SYNC] = "SYNC",
}

-- control/faults.h enum df_fault_op, encap.h enum dp_change_kind
local change_ops = {
	[0] = "down", [1] = "up", [2] = "load", [3] = "drain", [4] = "undrain",
}
local change_kinds = { [1] = "PREPARE", [2] = "COMMIT", [3] = "LOAD",
	[4] = "DEFER" }

-- dataplane/packet.h DP_PKT_*
local flag_bits = {
	{ 0x01, "measured", "Measured" },
	{ 0x02, "nonminimal", "Non-minimal" },
	{ 0x04, "escape", "Escape" },
	{ 0x20, "external", "External" },
}

local p = Proto("dfemu", "dfemu inter-instance link")

local f = {}
local fields = {} -- registered in this order
local function field(key, ctor, ...)
	f[key] = ctor("dfemu." .. key, ...)
	fields[#fields + 1] = f[key]
end

-- struct dp_encap_hdr
field("magic", ProtoField.uint32, "Magic", base.HEX)
field("version", ProtoField.uint8, "Version", base.DEC)
field("type", ProtoField.uint8, "Type", base.DEC, type_names)
field("src_instance", ProtoField.uint8, "Source instance", base.DEC)
field("dst_instance", ProtoField.uint8, "Destination instance", base.DEC)
field("seq", ProtoField.uint32, "Sequence", base.DEC)
field("count", ProtoField.uint16, "Count", base.DEC)
field("reserved", ProtoField.uint16, "Reserved", base.HEX)

-- struct dp_encap_data
field("data.link", ProtoField.uint32, "Link", base.DEC)
field("data.due", ProtoField.uint64,
	"Due at the far end (emulated ticks, 1/4 ns)", base.DEC)
field("data.gen", ProtoField.uint64, "Generated (emulated ticks, 1/4 ns)",
	base.DEC)
field("data.src_term", ProtoField.uint32, "Source terminal", base.DEC)
field("data.dst_term", ProtoField.uint32, "Destination terminal", base.DEC)
field("data.seq", ProtoField.uint32, "Packet sequence", base.DEC)
field("data.dst_router", ProtoField.uint16, "Destination router", base.DEC)
field("data.inter", ProtoField.uint16, "Intermediate group", base.DEC)
field("data.flits", ProtoField.uint16, "Flits", base.DEC)
field("data.phase", ProtoField.uint8, "Phase", base.DEC)
field("data.vc", ProtoField.uint8, "VC", base.DEC)
field("data.hops", ProtoField.uint8, "Hops", base.DEC)
field("data.flags", ProtoField.uint8, "Flags", base.HEX)
for _, b in ipairs(flag_bits) do
	field("data.flags." .. b[2], ProtoField.bool, b[3], 8, nil, b[1])
end
field("data.esc_n", ProtoField.uint8, "Escape-ring entries", base.DEC)
field("data.tbv", ProtoField.uint8, "Table version (mod 256)", base.DEC)
field("data.reserved", ProtoField.uint16, "Reserved", base.HEX)
field("data.tail", ProtoField.uint64,
	"Last byte at the far end (emulated ticks, 1/4 ns)", base.DEC)
-- laid out by the routing algorithm, in the hosts' byte order (HELLO)
field("data.eng", ProtoField.uint64, "Routing engine's own state",
	base.HEX)

-- struct dp_encap_credit
field("credit.link", ProtoField.uint32, "Link", base.DEC)
field("credit.vc", ProtoField.uint8, "VC", base.DEC)
field("credit.pad", ProtoField.uint8, "Padding", base.HEX)
field("credit.flits", ProtoField.uint16, "Flits", base.DEC)
field("credit.due", ProtoField.uint64,
	"Due back at the sender (emulated ticks, 1/4 ns)", base.DEC)

-- struct dp_encap_hello
field("hello.plan_hash", ProtoField.uint64, "Plan hash", base.HEX)
field("hello.now_ns", ProtoField.uint64, "Sender clock (ns)", base.DEC)
field("hello.echo_ns", ProtoField.uint64, "Echoed peer clock (ns)", base.DEC)
field("hello.held_ns", ProtoField.uint64, "Echo held (ns)", base.DEC)
field("hello.heard", ProtoField.uint8, "Heard peer", base.DEC)
field("hello.order", ProtoField.uint8, "Host byte order", base.DEC,
	{ [1] = "little-endian", [2] = "big-endian" })
field("hello.pad", ProtoField.bytes, "Padding")

-- struct dp_encap_stats
local stats_scalars = {
	{ "injected", "Injected" },
	{ "delivered", "Delivered" },
	{ "lost", "Lost" },
	{ "gen_measured", "Generated (measured)" },
	{ "del_measured", "Delivered (measured)" },
	{ "drops_measured", "Drops (measured)" },
	{ "credits_out", "Credits out" },
	{ "credits_in", "Credits in" },
}
local stats_arrays = {
	{ "sent", "DATA sent to instance" },
	{ "recv", "DATA received from instance" },
	{ "csent", "Credit flits sent to instance" },
	{ "crecv", "Credit flits received from instance" },
	{ "msent", "Measured DATA sent to instance" },
	{ "mrecv", "Measured DATA received from instance" },
}
for _, s in ipairs(stats_scalars) do
	field("stats." .. s[1], ProtoField.uint64, s[2], base.DEC)
end
for _, s in ipairs(stats_arrays) do
	field("stats." .. s[1], ProtoField.uint64, s[2], base.DEC)
end
field("stats.gen_stopped", ProtoField.uint8, "Generation stopped", base.DEC)
field("stats.lost_mask", ProtoField.uint8, "Instances taken as lost", base.HEX)
field("stats.prepared", ProtoField.uint16, "Table version prepared", base.DEC)
field("stats.settled", ProtoField.uint32, "Table changes settled", base.DEC)

-- struct dp_encap_change
field("change.n", ProtoField.uint32, "Table version or load change number",
	base.DEC)
field("change.op", ProtoField.uint8, "Operation", base.DEC, change_ops)
field("change.kind", ProtoField.uint8, "Kind", base.DEC, change_kinds)
field("change.event", ProtoField.uint16,
	"[faults] event + 1 made at its due time, or deferred (0: none)",
	base.DEC)
field("change.arg", ProtoField.string, "Argument")

-- struct dp_encap_sync
field("sync.clock", ProtoField.uint64,
	"Clock: sender has run up to (emulated ticks, 1/4 ns)", base.DEC)
field("sync.cpu", ProtoField.uint32, "CPU of the sender's bridge", base.DEC)
field("sync.ckpts", ProtoField.uint32,
	"Checkpoints every worker of the sender has taken", base.DEC)
field("sync.gen", ProtoField.uint64,
	"Measured packets generated at checkpoint ckpts - 1, then ckpts - 2",
	base.DEC)
field("sync.in", ProtoField.uint64,
	"Measured packets in (arrived or lost) at checkpoint ckpts - 1, then ckpts - 2",
	base.DEC)

-- struct dp_encap_summary and its entries
field("summary.first_term", ProtoField.uint32, "First terminal", base.DEC)
field("summary.term", ProtoField.uint32, "Terminal", base.DEC)
field("summary.cnt", ProtoField.uint64, "Packets settled", base.DEC)
field("summary.hash", ProtoField.uint64, "Set hash", base.HEX)

p.fields = fields

local ef_malformed = ProtoExpert.new("dfemu.malformed", "Malformed dfemu frame",
	expert.group.MALFORMED, expert.severity.ERROR)
local ef_version = ProtoExpert.new("dfemu.version.unknown",
	"Unknown dfemu version", expert.group.PROTOCOL, expert.severity.WARN)
local ef_type = ProtoExpert.new("dfemu.type.unknown", "Unknown dfemu type",
	expert.group.PROTOCOL, expert.severity.WARN)
p.experts = { ef_malformed, ef_version, ef_type }

local eth = Dissector.get("eth_withoutfcs")

-- Mark the frame malformed: expert info on RANGE (or the whole frame)
-- and a note in the Info column. Never raises.
local function malformed(tree, pinfo, range, info, msg)
	tree:add_tvb_expert_info(ef_malformed, range, "[Malformed] " .. msg)
	pinfo.cols.info = info .. " [Malformed: " .. msg .. "]"
end

-- True if LEN bytes are there at OFF; else marks the frame malformed.
local function need(tvb, tree, pinfo, info, off, len, what)
	local have = tvb:len() - off
	if have >= len then
		return true
	end
	local range = have > 0 and tvb(off, have) or tvb()
	malformed(tree, pinfo, range, info,
		string.format("%s needs %d bytes, %d left", what, len,
			math.max(have, 0)))
	return false
end

local function flags_text(v)
	local t = {}
	for _, b in ipairs(flag_bits) do
		if math.floor(v / b[1]) % 2 == 1 then
			t[#t + 1] = b[2]
		end
	end
	return table.concat(t, ",")
end

local function dissect_data(tvb, pinfo, root, tree, info, off)
	if not need(tvb, tree, pinfo, info, off, DATA_LEN, "DATA body") then
		return nil
	end
	local r = function(o, l) return tvb(off + o, l) end
	local st = tree:add(r(0, DATA_LEN), "DATA body")
	st:add(f["data.link"], r(0, 4))
	st:add(f["data.due"], r(4, 8))
	st:add(f["data.gen"], r(12, 8))
	st:add(f["data.src_term"], r(20, 4))
	st:add(f["data.dst_term"], r(24, 4))
	st:add(f["data.seq"], r(28, 4))
	st:add(f["data.dst_router"], r(32, 2))
	st:add(f["data.inter"], r(34, 2))
	st:add(f["data.flits"], r(36, 2))
	st:add(f["data.phase"], r(38, 1))
	st:add(f["data.vc"], r(39, 1))
	st:add(f["data.hops"], r(40, 1))
	local flags = r(41, 1):uint()
	local ft = st:add(f["data.flags"], r(41, 1))
	if flags ~= 0 then
		ft:append_text(" (" .. flags_text(flags) .. ")")
	end
	for _, b in ipairs(flag_bits) do
		ft:add(f["data.flags." .. b[2]], r(41, 1))
	end
	st:add(f["data.esc_n"], r(42, 1))
	st:add(f["data.tbv"], r(43, 1))
	st:add(f["data.reserved"], r(44, 2))
	st:add(f["data.tail"], r(46, 8))
	st:add(f["data.eng"], r(54, 8))

	info = string.format("%s link %u vc%u src t%u dst t%u", info,
		r(0, 4):uint(), r(39, 1):uint(), r(20, 4):uint(), r(24, 4):uint())

	local rest = tvb:len() - (off + DATA_LEN)
	if rest < 14 then
		-- An emulated frame has at least an Ethernet header.
		malformed(tree, pinfo, rest > 0 and tvb(off + DATA_LEN) or tvb(),
			info, string.format(
				"encapsulated frame needs 14 bytes, %d left", rest))
		return nil
	end
	if eth then
		-- The inner dissectors rewrite the columns; ours are set after.
		eth:call(tvb(off + DATA_LEN):tvb(), pinfo, root)
	end
	return info, tvb:len()
end

local function dissect_credit(tvb, pinfo, tree, info, off, count)
	info = string.format("%s %u entr%s", info, count,
		count == 1 and "y" or "ies")
	for i = 0, count - 1 do
		local o = off + i * CREDIT_LEN
		if not need(tvb, tree, pinfo, info, o, CREDIT_LEN,
				string.format("CREDIT entry %d", i)) then
			return nil
		end
		local et = tree:add(tvb(o, CREDIT_LEN), string.format("Credit %d: link %u vc %u flits %u", i,
			tvb(o, 4):uint(), tvb(o + 4, 1):uint(), tvb(o + 6, 2):uint()))
		et:add(f["credit.link"], tvb(o, 4))
		et:add(f["credit.vc"], tvb(o + 4, 1))
		et:add(f["credit.pad"], tvb(o + 5, 1))
		et:add(f["credit.flits"], tvb(o + 6, 2))
		et:add(f["credit.due"], tvb(o + 8, 8))
	end
	return info, off + count * CREDIT_LEN
end

-- The subtree of a fixed-length body of len bytes named name, or nil
-- (the frame marked malformed) when the frame is shorter.
local function body(tvb, pinfo, tree, info, off, len, name)
	if not need(tvb, tree, pinfo, info, off, len, name) then
		return nil
	end
	return tree:add(tvb(off, len), name)
end

local function dissect_hello(tvb, pinfo, tree, info, off)
	local st = body(tvb, pinfo, tree, info, off, HELLO_LEN, "HELLO body")
	if st == nil then
		return nil
	end
	st:add(f["hello.plan_hash"], tvb(off, 8))
	st:add(f["hello.now_ns"], tvb(off + 8, 8))
	st:add(f["hello.echo_ns"], tvb(off + 16, 8))
	st:add(f["hello.held_ns"], tvb(off + 24, 8))
	st:add(f["hello.heard"], tvb(off + 32, 1))
	st:add(f["hello.order"], tvb(off + 33, 1))
	st:add(f["hello.pad"], tvb(off + 34, 6))
	info = string.format("%s plan 0x%s heard %u", info,
		tvb(off, 8):uint64():tohex(), tvb(off + 32, 1):uint())
	return info, off + HELLO_LEN
end

local function dissect_stats(tvb, pinfo, tree, info, off)
	local st = body(tvb, pinfo, tree, info, off, STATS_LEN, "STATS body")
	if st == nil then
		return nil
	end
	local o = off
	for _, s in ipairs(stats_scalars) do
		st:add(f["stats." .. s[1]], tvb(o, 8))
		o = o + 8
	end
	for _, s in ipairs(stats_arrays) do
		local at = st:add(tvb(o, 8 * MAX_INSTANCES),
			s[1] .. "[" .. MAX_INSTANCES .. "]")
		for i = 0, MAX_INSTANCES - 1 do
			local it = at:add(f["stats." .. s[1]], tvb(o, 8))
			it:set_text(string.format("%s[%d] (%s %d): %s", s[1], i, s[2],
				i, tostring(tvb(o, 8):uint64())))
			o = o + 8
		end
	end
	st:add(f["stats.gen_stopped"], tvb(o, 1))
	st:add(f["stats.lost_mask"], tvb(o + 1, 1))
	st:add(f["stats.prepared"], tvb(o + 2, 2))
	st:add(f["stats.settled"], tvb(o + 4, 4))
	info = string.format("%s injected %s delivered %s%s%s", info,
		tostring(tvb(off, 8):uint64()), tostring(tvb(off + 8, 8):uint64()),
		tvb(o, 1):uint() ~= 0 and " gen_stopped" or "",
		tvb(o + 1, 1):uint() ~= 0 and
			string.format(" lost 0x%02x", tvb(o + 1, 1):uint()) or "")
	return info, off + STATS_LEN
end

local function dissect_change(tvb, pinfo, tree, info, off)
	local st = body(tvb, pinfo, tree, info, off, CHANGE_LEN, "CHANGE body")
	if st == nil then
		return nil
	end
	local op = tvb(off + 4, 1):uint()
	local kind = tvb(off + 5, 1):uint()
	local arg = tvb(off + 8, 64):stringz()
	st:add(f["change.n"], tvb(off, 4))
	st:add(f["change.op"], tvb(off + 4, 1))
	st:add(f["change.kind"], tvb(off + 5, 1))
	st:add(f["change.event"], tvb(off + 6, 2))
	st:add(f["change.arg"], tvb(off + 8, 64), arg)
	if kind == 2 then
		info = string.format("%s COMMIT version %u", info,
			tvb(off, 4):uint())
	else
		info = string.format("%s %s #%u %s %s", info,
			change_kinds[kind] or string.format("kind %u", kind),
			tvb(off, 4):uint(),
			change_ops[op] or string.format("op %u", op), arg)
	end
	return info, off + CHANGE_LEN
end

local function dissect_sync(tvb, pinfo, tree, info, off)
	local st = body(tvb, pinfo, tree, info, off, SYNC_LEN, "SYNC body")
	if st == nil then
		return nil
	end
	st:add(f["sync.clock"], tvb(off, 8))
	st:add(f["sync.cpu"], tvb(off + 8, 4))
	st:add(f["sync.ckpts"], tvb(off + 12, 4))
	st:add(f["sync.gen"], tvb(off + 16, 8))
	st:add(f["sync.gen"], tvb(off + 24, 8))
	st:add(f["sync.in"], tvb(off + 32, 8))
	st:add(f["sync.in"], tvb(off + 40, 8))
	info = string.format("%s clock %s", info,
		tostring(tvb(off, 8):uint64()))
	return info, off + SYNC_LEN
end

local function dissect_summary(tvb, pinfo, tree, info, off, count)
	if not need(tvb, tree, pinfo, info, off, SUMMARY_LEN, "SUMMARY body") then
		return nil
	end
	local first = tvb(off, 4):uint()
	tree:add(f["summary.first_term"], tvb(off, 4))
	if count > 0 then
		info = string.format("%s terminals t%u..t%u", info, first,
			first + count - 1)
	else
		info = info .. " no terminals"
	end
	off = off + SUMMARY_LEN
	for i = 0, count - 1 do
		local o = off + i * SUMMARY_ENTRY_LEN
		if not need(tvb, tree, pinfo, info, o, SUMMARY_ENTRY_LEN,
				string.format("SUMMARY entry %d", i)) then
			return nil
		end
		local et = tree:add(tvb(o, SUMMARY_ENTRY_LEN), string.format("Terminal %u: %s settled", first + i,
			tostring(tvb(o, 8):uint64())))
		et:add(f["summary.term"], first + i):set_generated()
		et:add(f["summary.cnt"], tvb(o, 8))
		et:add(f["summary.hash"], tvb(o + 8, 8))
	end
	return info, off + count * SUMMARY_ENTRY_LEN
end

function p.dissector(tvb, pinfo, root)
	local len = tvb:len()
	pinfo.cols.protocol = "dfemu"
	local tree = root:add(p, tvb())
	local info = "dfemu"

	if len < HDR_LEN then
		malformed(tree, pinfo, tvb(), info,
			string.format("header needs %d bytes, %d left", HDR_LEN, len))
		pinfo.cols.protocol = "dfemu"
		return len
	end

	local magic = tvb(0, 4):uint()
	local mt = tree:add(f["magic"], tvb(0, 4))
	if magic ~= MAGIC then
		malformed(mt, pinfo, tvb(0, 4), info,
			string.format("bad magic 0x%08x, expected 0x%08x", magic, MAGIC))
		return len
	end
	local version = tvb(4, 1):uint()
	local vt = tree:add(f["version"], tvb(4, 1))
	local ty = tvb(5, 1):uint()
	tree:add(f["type"], tvb(5, 1))
	local src, dst = tvb(6, 1):uint(), tvb(7, 1):uint()
	tree:add(f["src_instance"], tvb(6, 1))
	tree:add(f["dst_instance"], tvb(7, 1))
	tree:add(f["seq"], tvb(8, 4))
	local count = tvb(12, 2):uint()
	tree:add(f["count"], tvb(12, 2))
	tree:add(f["reserved"], tvb(14, 2))

	local name = type_names[ty] or string.format("type %u", ty)
	info = string.format("dfemu %s i%u->i%u", name, src, dst)
	tree:append_text(string.format(", %s, i%u -> i%u, seq %u", name, src, dst,
		tvb(8, 4):uint()))
	pinfo.cols.info = info

	if version ~= VERSION then
		vt:add_proto_expert_info(ef_version, string.format(
			"version %u, this dissector knows %u", version, VERSION))
		pinfo.cols.info = info .. " [unknown version]"
		return len
	end

	local off = HDR_LEN
	local newinfo, done
	if ty == T_DATA then
		newinfo, done = dissect_data(tvb, pinfo, root, tree, info, off)
	elseif ty == T_CREDIT then
		newinfo, done = dissect_credit(tvb, pinfo, tree, info, off, count)
	elseif ty == T_HELLO then
		newinfo, done = dissect_hello(tvb, pinfo, tree, info, off)
	elseif ty == T_STATS then
		newinfo, done = dissect_stats(tvb, pinfo, tree, info, off)
	elseif ty == T_DONE then
		newinfo, done = info, off
	elseif ty == T_SUMMARY then
		newinfo, done = dissect_summary(tvb, pinfo, tree, info, off, count)
	elseif ty == T_CHANGE then
		newinfo, done = dissect_change(tvb, pinfo, tree, info, off)
	elseif ty == T_SYNC then
		newinfo, done = dissect_sync(tvb, pinfo, tree, info, off)
	else
		tree:add_proto_expert_info(ef_type, string.format(
			"unknown type %u", ty))
		newinfo, done = info, len
	end

	pinfo.cols.protocol = "dfemu"
	if newinfo == nil then
		-- malformed(): the Info column already says why
		return len
	end
	if done < len then
		-- Ethernet padding of short frames ends up here: not an error.
		tree:add(tvb(done), string.format("Trailer: %d bytes after the %s body",
			len - done, name))
	end
	pinfo.cols.info = newinfo
	return len
end

DissectorTable.get("ethertype"):add(ETHERTYPE, p)
