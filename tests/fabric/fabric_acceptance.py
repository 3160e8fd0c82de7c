#!/usr/bin/env python3
"""The fabric acceptance run on one simulated subnet (CTest label fabric).

usage: fabric_acceptance.py --rdmactl PATH --net small|twoport|fattree

On a fresh ibsim + opensm: (1) our discover agrees with ibnetdiscover node for
node and link for link, and the checker rejects our output with one link
changed; (2) counters agree with perfquery on a sample of ports, with
injected error counters; (3) `fabric errors` is clean (exit 0) before and
names the injected SymbolErrorCounter / LinkDownedCounter ports after (exit 1);
(4) Unlink of one cable: the link is gone in both tools' view, ReLink brings
it back; (5) a CA dropping every MAD: the sweep names it in `unreachable`,
reports every other node, and ends within one timeout x tries of a clean one.
"""
import argparse
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_net  # noqa: E402
import simbed  # noqa: E402
import topocheck  # noqa: E402

TIMEOUT_MS = 100
RETRIES = 2
PERFQUERY_NAMES = {
    "SymbolErrorCounter": "symbol_error", "LinkErrorRecoveryCounter": "link_error_recovery",
    "LinkDownedCounter": "link_downed", "PortRcvErrors": "port_rcv_errors",
    "PortRcvRemotePhysicalErrors": "port_rcv_remote_physical_errors",
    "PortRcvSwitchRelayErrors": "port_rcv_switch_relay_errors", "PortXmitDiscards": "port_xmit_discards",
    "PortXmitConstraintErrors": "port_xmit_constraint_errors",
    "PortRcvConstraintErrors": "port_rcv_constraint_errors",
    "LocalLinkIntegrityErrors": "local_link_integrity_errors",
    "ExcessiveBufferOverrunErrors": "excessive_buffer_overrun_errors", "VL15Dropped": "VL15_dropped",
    "PortXmitWait": "port_xmit_wait",
}
# Traffic counters move with every MAD (ours and perfquery's): compared within a bound.
PERFQUERY_EXT = {"PortXmitPkts": "port_xmit_packets", "PortRcvPkts": "port_rcv_packets",
                 "PortXmitData": "port_xmit_data_bytes", "PortRcvData": "port_rcv_data_bytes"}


def rdmactl(sim, args, *sub):
    cmd = [args.rdmactl, "--json", "fabric", *sub, "--timeout-ms", str(TIMEOUT_MS), "--retries", str(RETRIES)]
    t0 = time.monotonic()
    cp = sim.run(cmd, timeout_s=120)
    wall = time.monotonic() - t0
    doc = json.loads(cp.stdout) if cp.stdout.strip().startswith("{") else None
    if doc is None:
        print(f"  {' '.join(cmd)} exit {cp.returncode}: {cp.stderr.strip()[-1000:]}")
    return cp.returncode, doc, wall


def topology_agrees(sim, args, check, label):
    rc, ours, _ = rdmactl(sim, args, "discover")
    ibnd = sim.run(["ibnetdiscover"], timeout_s=120)
    with open(os.path.join(sim.dir, "ours.json"), "w") as f:
        json.dump(ours, f)
    with open(os.path.join(sim.dir, "ibnetdiscover.txt"), "w") as f:
        f.write(ibnd.stdout)
    diffs = topocheck.compare(topocheck.parse_ours(ours), topocheck.parse_ibnetdiscover(ibnd.stdout))
    for d in diffs[:20]:
        print("  " + d)
    n_links = len(topocheck.parse_ours(ours)[1])
    check(rc == 0 and ibnd.returncode == 0 and not diffs,
          f"{label}: discover agrees with ibnetdiscover ({len(ours['nodes'])} nodes, {n_links} links, "
          f"sweep {ours['sweep_ms']} ms, {len(diffs)} differences)")
    return ours, ibnd.stdout


def by_desc(doc):
    return {n["description"]: n for n in doc["nodes"]}


def checker_rejects_one_changed_link(ours, ibnd, check):
    changed = json.loads(json.dumps(ours))
    for n in changed["nodes"]:
        ports = [p for p in n["ports"] if p.get("remote")]
        if ports:
            p = ports[-1]
            p["remote"]["port"] += 1
            what = f"{n['description']}[{p['port']}] -> remote port {p['remote']['port']}"
            break
    diffs = topocheck.compare(topocheck.parse_ours(changed), topocheck.parse_ibnetdiscover(ibnd))
    for d in diffs:
        print("  " + d)
    check(len(diffs) >= 1, f"checker rejects one changed link ({what}): {len(diffs)} difference(s)")


def perfquery(sim, lid, port, extended):
    cp = sim.run(["perfquery"] + (["-x"] if extended else []) + [str(lid), str(port)], timeout_s=30)
    values = {}
    for line in cp.stdout.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            v = v.strip(". ")
            if v.isdigit():
                values[k.strip()] = int(v)
    return cp.returncode, values


def sample_ports(doc, rng, n):
    ports = [(node, p) for node in doc["nodes"] for p in node["ports"] if p.get("remote")]
    return rng.sample(ports, min(n, len(ports)))


def counters_agree(sim, args, check, doc, rng):
    sample = sample_ports(doc, rng, 6)
    lines = []
    for i, (node, p) in enumerate(sample):
        lines.append(f'PerformanceSet "{node["description"]}"[{p["port"]}] PortCounters.SymbolErrorCounter={3 + i}')
        lines.append(f'PerformanceSet "{node["description"]}"[{p["port"]}] PortCounters.PortRcvErrors={7 * (i + 1)}')
    sim.console(*lines)
    rc, ours, _ = rdmactl(sim, args, "counters")
    mine = {(n["guid"], p["port"]): p for n in ours["nodes"] for p in n["ports"]}
    bad = []
    # Every MAD (ours, then perfquery's) crosses the querying CA's port: bound by them.
    mads = 2 * ours["mads"]["sent"] + 50
    for node, p in sample:
        lid = p["lid"]
        port = mine[(node["guid"], p["port"])]
        rc1, basic = perfquery(sim, lid, p["port"], False)
        rc2, ext = perfquery(sim, lid, p["port"], True)
        if rc1 or rc2:
            bad.append(f"perfquery {lid} {p['port']} failed")
            continue
        for theirs, name in PERFQUERY_NAMES.items():
            if theirs in basic and basic[theirs] != port["counters"].get(name):
                bad.append(f"{node['description']}[{p['port']}] {name}: ours {port['counters'].get(name)}, perfquery {basic[theirs]}")
        for theirs, name in PERFQUERY_EXT.items():
            scale = 4 if name.endswith("_bytes") else 1
            mine_v = port["counters"].get(name, -1)
            bound = mads * (400 if scale == 4 else 1)
            if theirs in ext and not (0 <= ext[theirs] * scale - mine_v <= bound):
                bad.append(f"{node['description']}[{p['port']}] {name}: ours {mine_v}, perfquery {ext[theirs] * scale}")
    for b in bad:
        print("  " + b)
    check(rc == 0 and not bad, f"counters agree with perfquery on {len(sample)} sampled ports "
                                f"(errors exact incl. injected ones, traffic within the MADs sent between)")
    # Put the sample back to zero for the threshold checks.
    sim.console(*[f'PerformanceSet "{n["description"]}"[{p["port"]}] PortCounters.{c}=0'
                  for n, p in sample for c in ("SymbolErrorCounter", "PortRcvErrors")])


def errors_flagged(sim, args, check, doc, rng):
    rc, clean, _ = rdmactl(sim, args, "errors")
    check(rc == 0 and clean["status"] == "OK", f"fabric errors on a clean subnet: exit {rc}, {len(clean['findings'])} findings")
    (n1, p1), (n2, p2) = sample_ports(doc, rng, 2)
    sim.console(f'PerformanceSet "{n1["description"]}"[{p1["port"]}] PortCounters.SymbolErrorCounter=42',
                f'PerformanceSet "{n2["description"]}"[{p2["port"]}] PortCounters.LinkDownedCounter=12')
    rc, res, _ = rdmactl(sim, args, "errors")
    got = {(f["guid"], f["port"], f["counter"], f["value"]) for f in res["findings"]}
    want = {(n1["guid"], p1["port"], "symbol_error", 42), (n2["guid"], p2["port"], "link_downed", 12)}
    print(f"  findings: {sorted(got)}")
    check(rc == 1 and want <= got and len(got) == 2,
          f"fabric errors names {n1['description']}[{p1['port']}] symbol_error=42 and "
          f"{n2['description']}[{p2['port']}] link_downed=12, exit {rc}")
    sim.console(f'PerformanceSet "{n1["description"]}"[{p1["port"]}] PortCounters.SymbolErrorCounter=0',
                f'PerformanceSet "{n2["description"]}"[{p2["port"]}] PortCounters.LinkDownedCounter=0')


def link_key(doc, name, port):
    node = by_desc(doc)[name]
    for p in node["ports"]:
        if p["port"] == port:
            return p
    return None


def unlink_relink(sim, args, check, doc):
    sw = next(n for n in doc["nodes"] if n["type"] == "Switch" and
              any(p.get("remote") and p["remote"]["guid"] != doc["nodes"][0]["guid"] for p in n["ports"]))
    port = next(p for p in sw["ports"] if p.get("remote") and p["port"] != 1)
    name = sw["description"]
    sim.console(f'Unlink "{name}"[{port["port"]}]')
    after, ibnd = topology_agrees(sim, args, check, f"after Unlink \"{name}\"[{port['port']}]")
    p = link_key(after, name, port["port"])
    check(p is not None and p["remote"] is None and p["state"] == "DOWN",
          f"Unlink: {name}[{port['port']}] has no remote and is {p and p['state']}")
    sim.console(f'ReLink "{name}"[{port["port"]}]')
    deadline = time.monotonic() + 60
    while True:
        _, again, _ = rdmactl(sim, args, "discover")
        p = link_key(again, name, port["port"])
        if (p and p["remote"] and p["state"] == "ACTIVE") or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    check(p is not None and p["remote"] == port["remote"] and p["state"] == "ACTIVE",
          f"ReLink: {name}[{port['port']}] back to {p and p['remote']} {p and p['state']}")


def drop_one_node(sim, args, check, doc):
    _, clean, t_clean = rdmactl(sim, args, "counters")
    victim = [n for n in doc["nodes"] if n["type"] == "CA"][-1]
    vp = victim["ports"][0]
    sim.console(f'Error "{victim["description"]}"[{vp["port"]}] 100')
    rc, res, t_drop = rdmactl(sim, args, "counters")
    sim.console(f'Error "{victim["description"]}"[{vp["port"]}] 0')
    names = [u for u in res["unreachable"] if u.get("via") == vp["remote"] or u.get("guid") == victim["guid"]]
    others = {n["guid"] for n in clean["nodes"]} - {victim["guid"]}
    reported = {n["guid"] for n in res["nodes"]}
    budget_ms = clean["sweep_ms"] + TIMEOUT_MS * (RETRIES + 1) + 200
    print(f"  unreachable: {json.dumps(res['unreachable'])}")
    check(rc == 0 and len(names) == 1, f"MADs to {victim['description']} dropped: named in unreachable")
    check(others <= reported, f"every other node reported ({len(others & reported)}/{len(others)})")
    check(res["sweep_ms"] <= budget_ms,
          f"sweep with drops {res['sweep_ms']} ms vs clean {clean['sweep_ms']} ms "
          f"(budget clean + {TIMEOUT_MS} ms x {RETRIES + 1} tries + 200 ms = {budget_ms} ms)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdmactl", required=True)
    ap.add_argument("--net", required=True, choices=["small", "twoport", "fattree"])
    args = ap.parse_args()
    code = simbed.tool_missing()
    if code is not None:
        return code
    check = simbed.Check()
    rng = random.Random(10)
    net_dir = simbed.tempfile.mkdtemp(prefix="rdmascope-net-")
    netfile = os.path.join(net_dir, args.net)
    with open(netfile, "w") as f:
        text, host = gen_net.fattree(24, 24, 12) if args.net == "fattree" else getattr(gen_net, args.net)()
        f.write(text)
    try:
        with simbed.Sim(netfile, host) as sim:
            doc, ibnd = topology_agrees(sim, args, check, args.net)
            checker_rejects_one_changed_link(doc, ibnd, check)
            counters_agree(sim, args, check, doc, rng)
            errors_flagged(sim, args, check, doc, rng)
            unlink_relink(sim, args, check, doc)
            drop_one_node(sim, args, check, doc)
    finally:
        simbed.shutil.rmtree(net_dir, ignore_errors=True)
    print(f"{'FAILED' if check.failed else 'PASSED'}: {args.net}, {check.failed} check(s) failed")
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main())
