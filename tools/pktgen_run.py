"""`dfemu-pktgen run`: one experiment with Pktgen-DPDK on dfemu's terminals.

dfemu binds each terminal of --terminals to a memif server; Pktgen is the
client, its port k on the k-th terminal. Pktgen runs the senders' scripts
and a Lua epilogue that writes its port counters once everything is sent
and its ports have been quiet for a second; dfemu is then ended with
SIGINT, which drains the network before its report. The table reconciles
both sides (docs/ports-and-hosts.md, "Pktgen-DPDK as a peer").
"""
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# the EAL file prefixes of this run: TAG + "d" (dfemu), TAG + "p" (Pktgen)
TAG = "dfpg%d" % os.getpid()

# Pktgen's epilogue: wait for every sender's count, then for a quiet
# second on every port's receive counter, write the counters, quit
EPILOGUE = """
local want, ports = {}, tonumber(os.getenv("PG_PORTS"))
for p, n in string.gmatch(os.getenv("PG_WANT"), "(%d+):(%d+)") do
	want[tonumber(p)] = tonumber(n)
end
local deadline = tonumber(os.getenv("PG_TIMEOUT_MS"))
local function sent(s)
	for p, n in pairs(want) do
		if s[p].opackets < n then return false end
	end
	return true
end
local waited = 0
while not sent(pktgen.portStats("all", "port")) and waited < deadline do
	pktgen.delay(100)
	waited = waited + 100
end
local function rx(s)
	local n = 0
	for p = 0, ports - 1 do n = n + s[p].ipackets end
	return n
end
local last, quiet = -1, 0
while quiet < 1000 and waited < deadline do
	local n = rx(pktgen.portStats("all", "port"))
	if n == last then quiet = quiet + 100 else quiet = 0 end
	last = n
	pktgen.delay(100)
	waited = waited + 100
end
local s = pktgen.portStats("all", "port")
local f = io.open(os.getenv("PG_OUT"), "w")
for p = 0, ports - 1 do
	f:write(string.format("%d %d %d %d %d\\n", p, s[p].opackets,
		s[p].ipackets, s[p].obytes, s[p].ibytes))
end
f:close()
pktgen.quit()
"""


def cpus():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def lcores(n):
    """Pktgen's EAL --lcores for n+1 lcores (0: its display, k+1: port k),
    spread over every CPU but the last, which dfemu's worker has to
    itself (all on CPU 0 on a 2-CPU machine)."""
    c = max(cpus() - 1, 1)
    return ",".join("%d@%d" % (k, k % c) for k in range(n + 1))


def dfemu_lcores():
    """dfemu's main lcore (it mostly sleeps) on CPU 0, its worker on the
    last CPU."""
    return "0@0,1@%d" % (cpus() - 1)


def write_files(o, pg, d, addr, cfg):
    """The config with the memif bindings, and Pktgen's command file."""
    sock = os.path.join(d, "sock")
    os.mkdir(sock)
    with open(o["config"]) as f:
        text = f.read()
    with open(os.path.join(d, "run.ini"), "w") as f:
        f.write(text.rstrip("\n") + "\n\n[terminals]\n")
        for t in o["terminals"]:
            f.write("t%d = net_memif%d,role=server,socket=%s/t%d.sock,"
                    "socket-abstract=no\n" % (t, t, sock, t))
    o["pct"], o["why"] = pg.rate(o, cfg)
    script = []
    for k, t in enumerate(o["terminals"]):
        if t not in o["send"]:
            continue
        o["terminal"] = t
        script.append(pg.write_pkt(o, addr[t],
                                   pg.spread(pg.destinations(o, addr)), k))
    with open(os.path.join(d, "epilogue.lua"), "w") as f:
        f.write(EPILOGUE)
    with open(os.path.join(d, "run.pkt"), "w") as f:
        f.write("".join(script))
        f.write("script %s\n" % os.path.join(d, "epilogue.lua"))
    return sock


def start_dfemu(o, d, sock):
    cmd = [o["dfemu"], "--config", os.path.join(d, "run.ini"), "--quiet",
           "--set", "traffic.load=0", "--set", "traffic.warmup_ms=0",
           "--set", "traffic.measure_ms=3600000"]
    for s in o["sets"]:
        cmd += ["--set", s]
    cmd += ["--json", os.path.join(d, "dfemu.json"), "--eal", "--lcores",
            dfemu_lcores(), "--no-pci", "--no-huge",
            "-m", "512", "--no-shconf", "--log-level=warning",
            "--file-prefix=%sd" % TAG]
    log = open(os.path.join(d, "dfemu.log"), "w")
    # a session of its own: its main lcore's millisecond naps beside a
    # busy process of the caller's session would leave Pktgen's lcores
    # on that CPU almost no time (docs/ports-and-hosts.md, "Sharing CPUs
    # with busy processes"); so a Ctrl-C reaches it through stop_dfemu
    emu = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, start_new_session=True)
    want = [os.path.join(sock, "t%d.sock" % t) for t in o["terminals"]]
    end = time.monotonic() + 60
    try:
        while not all(os.path.exists(w) for w in want):
            if emu.poll() is not None or time.monotonic() > end:
                return emu, False
            time.sleep(0.05)  # polling for the sockets, not synchronising
    except KeyboardInterrupt:
        stop_dfemu(emu)
        raise
    return emu, True


def run_pktgen(o, d, sock, timeout):
    n = len(o["terminals"])
    vdevs = " ".join(
        "--vdev=net_memif%d,role=client,socket=%s/t%d.sock,"
        "socket-abstract=no" % (k, sock, t)
        for k, t in enumerate(o["terminals"]))
    maps = " ".join("-m [%d].%d" % (k + 1, k) for k in range(n))
    cmd = ("%s --lcores %s --no-pci --no-huge -m %d --no-shconf "
           "--no-telemetry --file-prefix=%sp %s -- -P -T %s -f %s" %
           (shlex.quote(o["pktgen"]), lcores(n), 128 + 128 * n, TAG, vdevs,
            maps, shlex.quote(os.path.join(d, "run.pkt"))))
    env = dict(os.environ, PG_PORTS=str(n),
               PG_OUT=os.path.join(d, "pktgen.counters"),
               PG_TIMEOUT_MS=str(int(timeout * 1000)),
               PG_WANT=" ".join("%d:%d" % (k, o["packets"])
                                for k, t in enumerate(o["terminals"])
                                if t in o["send"]))
    with open(os.path.join(d, "pktgen.log"), "w") as log:
        try:
            # Pktgen draws on a terminal: script(1) gives it one
            return subprocess.run(["script", "-qec", cmd, "/dev/null"],
                                  stdin=subprocess.DEVNULL, stdout=log,
                                  stderr=subprocess.STDOUT, env=env,
                                  timeout=timeout + 60).returncode
        except subprocess.TimeoutExpired:
            return 124


def stop_dfemu(emu):
    if emu.poll() is None:
        emu.send_signal(signal.SIGINT)
    try:
        return emu.wait(timeout=120)
    except subprocess.TimeoutExpired:
        emu.kill()
        return emu.wait()


def counters(d):
    pg = {}
    try:
        for line in open(os.path.join(d, "pktgen.counters")):
            p, tx, rx, txb, rxb = map(int, line.split())
            pg[p] = {"sent": tx, "received": rx, "sent_bytes": txb,
                     "received_bytes": rxb}
    except (OSError, ValueError):
        return None
    return pg


def reconcile(o, pg, r, emu_rc, pg_rc):
    """The table's rows, and what does not add up."""
    t = {x["terminal"]: x for x in r["ports"]["terminals"]}
    rows, bad = [], []
    for k, term in enumerate(o["terminals"]):
        x, p = t.get(term), pg.get(k)
        if x is None or p is None:
            bad.append("t%d: no counters (dfemu %s, Pktgen %s)" %
                       (term, x is not None, p is not None))
            continue
        drops = sum(x["dropped"].values())
        rows.append({
            "terminal": term, "pktgen_port": k, "sent": p["sent"],
            "rx": x["rx"], "injected": x["injected"],
            "dropped": {n: v for n, v in x["dropped"].items() if v},
            "arp_replies": x["arp_replies"],
            "delivered_here": x["delivered_from_ports"], "tx": x["tx"],
            "received": p["received"], "load": x["span_load"],
            "span_s": x["span_s"],
            "latency_ns": x["latency_ns"]})
        if p["sent"] != x["rx"]:
            bad.append("t%d: Pktgen port %d sent %d, dfemu received %d" %
                       (term, k, p["sent"], x["rx"]))
        if x["rx"] != x["injected"] + drops + x["arp_replies"]:
            bad.append("t%d: received %d != injected %d + dropped %d + ARP "
                       "%d" % (term, x["rx"], x["injected"], drops,
                               x["arp_replies"]))
        if x["tx"] != p["received"]:
            bad.append("t%d: dfemu put %d on its port, Pktgen port %d "
                       "received %d" % (term, x["tx"], k, p["received"]))
        if term in o["send"] and p["sent"] != o["packets"]:
            bad.append("t%d: Pktgen sent %d of %d" %
                       (term, p["sent"], o["packets"]))
    injected = sum(x["injected"] for x in r["ports"]["terminals"])
    delivered = sum(x["delivered_from_ports"]
                    for x in r["ports"]["terminals"])
    pk = r["packets"]
    if injected != delivered:
        bad.append("port frames injected %d, delivered %d" %
                   (injected, delivered))
    if pk["in_flight"] != 0:
        bad.append("%d packets still in flight" % pk["in_flight"])
    if emu_rc not in (0, 5):  # 5: counts good, timing not (below)
        bad.append("dfemu exit status %d" % emu_rc)
    if pg_rc != 0:
        bad.append("Pktgen exit status %d" % pg_rc)
    net = {"injected_from_ports": injected,
           "delivered_from_ports": delivered,
           "to_built_in_terminals": delivered - sum(
               x["delivered_from_ports"] for x in r["ports"]["terminals"]
               if x["terminal"] in o["terminals"]),
           "generated": pk["generated"], "injected": pk["injected"],
           "delivered": pk["delivered"], "in_flight": pk["in_flight"],
           "dropped": {n: v for n, v in pk["dropped"].items() if v},
           "offered_load": r["offered_load"],
           "accepted_load": r["accepted_load"],
           "kept_real_time": r["kept_real_time"]}
    return rows, net, bad


def us(ns):
    return "%.1f" % (ns / 1e3)


def table(o, rows, net, bad, emu_rc, pg_rc):
    out = ["dfemu-pktgen run: %s, pattern %s, %d frames from each of %s, "
           "%d bytes" % (o["config"], o["pattern"], o["packets"],
                         ",".join("t%d" % t for t in o["send"]), o["size"]),
           "  rate: " + o["why"], ""]
    head = ("terminal", "port", "sent", "rx", "injected", "dropped",
            "delivered", "tx", "received", "load", "lat p50/p99 us")
    lines = [head]
    for x in rows:
        lat = x["latency_ns"]
        lines.append((
            "t%d" % x["terminal"], str(x["pktgen_port"]), str(x["sent"]),
            str(x["rx"]), str(x["injected"]),
            str(sum(x["dropped"].values())), str(x["delivered_here"]),
            str(x["tx"]), str(x["received"]), "%.4f" % x["load"],
            "%s/%s" % (us(lat["p50"]), us(lat["p99"])) if lat["packets"]
            else "-"))
    w = [max(len(r[i]) for r in lines) for i in range(len(head))]
    for r in lines:
        out.append("  " + "  ".join(c.rjust(w[i]) if i else c.ljust(w[i])
                                    for i, c in enumerate(r)))
    out += ["",
            "  sent, received: Pktgen's port counters; rx, injected, "
            "dropped, delivered",
            "  (port frames delivered at the terminal), tx: dfemu's, "
            "per terminal; load: what",
            "  the port offered over the span it sent in, a fraction of "
            "the terminal link",
            "",
            "  network: %d port frames injected, %d delivered (%d to "
            "built-in terminals), %d in flight; dropped %s" %
            (net["injected_from_ports"], net["delivered_from_ports"],
             net["to_built_in_terminals"], net["in_flight"],
             ", ".join("%s %d" % kv for kv in net["dropped"].items())
             or "none"),
            "  offered load %.4f, accepted %.4f; dfemu exit %d, Pktgen "
            "exit %d" % (net["offered_load"], net["accepted_load"], emu_rc,
                         pg_rc)]
    for x in rows:
        for n, v in x["dropped"].items():
            out.append("  t%d dropped %d: %s" % (x["terminal"], v, n))
    if bad:
        out.append("NOT RECONCILED:")
        out += ["  " + b for b in bad]
    else:
        out.append("reconciled: every frame Pktgen sent entered dfemu and "
                   "was delivered; every frame put on a port reached "
                   "Pktgen")
    if emu_rc == 5:
        out.append("NOT REAL TIME: dfemu's host did not keep up with the "
                   "emulated time (its exit status 5), so latency and "
                   "load are partly the host's; lower the rate, or give "
                   "dfemu and Pktgen separate CPUs")
    return "\n".join(out) + "\n"


def run(o, pg):
    """The whole experiment; the exit status."""
    addr = pg.query(o, "--print-addresses")
    cfg = pg.query(o, "--print-config")
    for t in o["terminals"]:
        if not 0 <= t < len(addr):
            pg.die("--terminals: t%d; the network has terminals 0..%d" %
                   (t, len(addr) - 1))
    d = o["keep"] or tempfile.mkdtemp(prefix="dfemu-pktgen-")
    os.makedirs(d, exist_ok=True)
    sock = write_files(o, pg, d, addr, cfg)
    fps = o["pct"] / 100 * o["port-gbps"] * 1e9 / ((o["size"] + 20) * 8)
    timeout = o["timeout"] or 3 * o["packets"] / fps + 30
    emu, up = start_dfemu(o, d, sock)
    pg_rc = 3
    try:
        if up:
            pg_rc = run_pktgen(o, d, sock, timeout)
    finally:
        emu_rc = stop_dfemu(emu)
        for suffix in "dp":
            shutil.rmtree(os.path.join("/var/run/dpdk", TAG + suffix),
                          ignore_errors=True)
    res = counters(d)
    try:
        with open(os.path.join(d, "dfemu.json")) as f:
            r = json.load(f)
    except (OSError, ValueError):
        r = None
    if not up or r is None or res is None:
        sys.stderr.write(
            "dfemu-pktgen run: %s (logs in %s)\n" %
            ("dfemu did not start" if not up else
             "no report from dfemu" if r is None else
             "no counters from Pktgen (exit %d)" % pg_rc, d))
        for f in ("dfemu.log", "pktgen.log"):
            tail(os.path.join(d, f))
        return 3
    rows, net, bad = reconcile(o, res, r, emu_rc, pg_rc)
    # with --json -, stdout is the JSON alone
    (sys.stderr if o["json"] == "-" else sys.stdout).write(
        table(o, rows, net, bad, emu_rc, pg_rc))
    if o["json"]:
        doc = {"config": o["config"], "pattern": o["pattern"],
               "packets": o["packets"], "size": o["size"],
               "rate_pct": o["pct"], "terminals": rows, "network": net,
               "dfemu_exit": emu_rc, "pktgen_exit": pg_rc,
               "reconciled": not bad, "problems": bad}
        if o["json"] == "-":
            json.dump(doc, sys.stdout, indent=1)
            sys.stdout.write("\n")
        else:
            with open(o["json"], "w") as f:
                json.dump(doc, f, indent=1)
    if o["keep"] is None:
        shutil.rmtree(d, ignore_errors=True)
    else:
        sys.stderr.write("dfemu-pktgen run: kept in %s\n" % d)
    return 1 if bad else 5 if emu_rc == 5 else 0


def tail(path, n=12):
    try:
        lines = open(path, errors="replace").read().splitlines()[-n:]
    except OSError:
        return
    sys.stderr.write("--- %s\n" % path)
    for line in lines:
        sys.stderr.write("  %s\n" % line)
