#!/usr/bin/env python3
"""Routes acceptance on a simulated 324-node fat tree (CTest label fabric).

usage: fabric_routes.py --rdmactl PATH [--pairs 50] [--runs 5]

On a fresh ibsim + opensm (24 leaves x 12 hosts, 12 spines): (1) the sweep
with and without --routes, side by side (median of --runs each, alternating);
(2) `rdmactl fabric discover --routes --json` holds, for EVERY switch, the
same LinearForwardingTable as `ibroute LID` prints (every LID entry, and the
table's top); (3) `rdmactl fabric path SRC DST --json` crosses the same
switches by the same ports as `ibtracert SLID DLID` for --pairs random host
pairs, SRC and DST named in turn by LID, node description, node GUID and port
GUID; (4) a name that matches nothing and a LID nobody has are errors
(exit 2) that say so; (5) with the subnet manager stopped and a cable on a
path unlinked, the path is an error naming the switch and port that lead
nowhere (and ibtracert fails too). Prints the counts and "mismatches: N"; any
mismatch fails.
"""
import argparse
import json
import os
import random
import re
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_net  # noqa: E402
import simbed  # noqa: E402

LEAVES, HOSTS, SPINES = 24, 12, 12
TOOL_WORKERS = 6  # ibsim serves at most 10 clients at once
NO_ROUTE = 255
ROUTE_LINE = re.compile(r"^0x([0-9a-fA-F]+) (\d+) :")
RANGE_LINE = re.compile(r"^Unicast lids \[0x([0-9a-fA-F]+)-0x([0-9a-fA-F]+)\] of switch Lid (\d+) guid 0x([0-9a-fA-F]+)")
HOP_LINE = re.compile(r"^\[(\d+)\] -> (switch|ca) port \{0x([0-9a-fA-F]+)\}\[(\d+)\]")


class Check:
    def __init__(self):
        self.failed = 0

    def __call__(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what, flush=True)
        if not ok:
            self.failed += 1
        return ok


def rdmactl(sim, args, *sub):
    cmd = [args.rdmactl, "--json", "fabric", *sub, "--timeout-ms", "100", "--retries", "2"]
    t0 = time.monotonic()
    cp = sim.run(cmd, timeout_s=60)
    wall = time.monotonic() - t0
    doc = json.loads(cp.stdout) if cp.stdout.strip().startswith("{") else None
    return cp, doc, wall


def sweep_times(sim, args, check):
    """Median sweep_ms and wall time with and without --routes, runs alternating."""
    times = {False: [], True: []}
    docs = {}
    for _ in range(args.runs):
        for routes in (False, True):
            cp, doc, wall = rdmactl(sim, args, "discover", *(["--routes"] if routes else []))
            if cp.returncode != 0 or doc is None:
                check(False, f"discover{' --routes' if routes else ''}: exit {cp.returncode} "
                             f"{cp.stderr.strip()[-500:]}")
                return None
            times[routes].append((doc["sweep_ms"], wall * 1000, doc["mads"]["sent"]))
            docs[routes] = doc
    print(f"  {args.runs} runs each, alternating, one simulator; sweep_ms as the sweep reports it, wall_ms of the "
          f"whole rdmactl run")
    print(f"  {'':14} {'sweep_ms min':>12} {'median':>7} {'wall_ms min':>12} {'median':>7} {'MADs':>6}")
    for routes in (False, True):
        col = lambda i: [t[i] for t in times[routes]]  # noqa: E731
        print(f"  {'--routes' if routes else 'discover':14} {min(col(0)):12.0f} {statistics.median(col(0)):7.0f} "
              f"{min(col(1)):12.0f} {statistics.median(col(1)):7.0f} {statistics.median(col(2)):6.0f}")
    return docs[True]


def parse_ibroute(text):
    """(top, {lid: port}, switch lid, switch guid) from `ibroute LID`."""
    top, table, lid, guid = None, {}, None, None
    for line in text.splitlines():
        m = RANGE_LINE.match(line)
        if m:
            top, lid, guid = int(m.group(2), 16), int(m.group(3)), int(m.group(4), 16)
            continue
        m = ROUTE_LINE.match(line)
        if m:
            table[int(m.group(1), 16)] = int(m.group(2))
    return top, table, lid, guid


def compare_tables(switches, outs):
    """Every LID entry of every switch, ours against ibroute's: (entries compared, mismatches)."""
    mismatches, entries = [], 0
    for n, cp in zip(switches, outs):
        name = f"{n['description']} (LID {n['lid']})"
        if cp.returncode != 0:
            mismatches.append(f"{name}: ibroute exited {cp.returncode}: {cp.stderr.strip()[-300:]}")
            continue
        top, theirs, lid, guid = parse_ibroute(cp.stdout)
        ours = n.get("lft")
        if not ours:
            mismatches.append(f"{name}: no lft in our sweep")
            continue
        if guid != int(n["guid"], 16) or lid != n["lid"]:
            mismatches.append(f"{name}: ibroute answered for switch {guid:#x} LID {lid}")
        if top != len(ours) - 1:
            mismatches.append(f"{name}: table top ours {len(ours) - 1}, ibroute {top}")
        for dlid in range(1, max(len(ours), (top or 0) + 1)):
            mine = ours[dlid] if dlid < len(ours) else NO_ROUTE
            other = theirs.get(dlid, NO_ROUTE)
            entries += 1
            if mine != other:
                mismatches.append(f"{name}: LID {dlid} ours port {mine}, ibroute port {other}")
    return entries, mismatches


def tables_agree(sim, args, check, doc):
    switches = [n for n in doc["nodes"] if n["type"] == "Switch"]
    t0 = time.monotonic()
    with ThreadPoolExecutor(TOOL_WORKERS) as ex:
        outs = list(ex.map(lambda n: sim.run(["ibroute", str(n["lid"])], timeout_s=60), switches))
    took = time.monotonic() - t0
    entries, mismatches = compare_tables(switches, outs)
    for m in mismatches[:20]:
        print("  " + m)
    routed = sum(1 for n in switches for p in n.get("lft", [])[1:] if p != NO_ROUTE)
    check(len(switches) == LEAVES + SPINES and not mismatches,
          f"forwarding tables of {len(switches)} switches agree with ibroute ({entries} LID entries compared, "
          f"{routed} routed; ibroute x{len(switches)} in {took:.1f} s, {TOOL_WORKERS} at a time); "
          f"mismatches: {len(mismatches)}")
    # The comparison itself must see a difference: one entry of one switch changed.
    changed = json.loads(json.dumps(switches))
    victim = changed[len(changed) // 2]
    dlid = len(victim["lft"]) // 2
    victim["lft"][dlid] = victim["lft"][dlid] % 12 + 1
    _, found = compare_tables(changed, outs)
    check(len(found) == 1, f"checker sees one changed entry ({victim['description']} LID {dlid}): {found}")
    return len(mismatches)


def parse_ibtracert(text):
    """The switch hops [(guid, in_port, out_port)] from `ibtracert SLID DLID`."""
    hops, lines = [], [HOP_LINE.match(l) for l in text.splitlines()]
    lines = [m for m in lines if m]
    for i, m in enumerate(lines):
        if m.group(2) == "switch":
            out = int(lines[i + 1].group(1)) if i + 1 < len(lines) else 0
            hops.append((int(m.group(3), 16), int(m.group(4)), out))
    return hops


def paths_agree(sim, args, check, doc, port_guids, rng):
    hosts = [n for n in doc["nodes"] if n["type"] == "CA" and n["ports"] and n["ports"][0]["lid"]]
    pairs = []
    while len(pairs) < args.pairs:
        a, b = rng.sample(hosts, 2)
        pairs.append((a, b))

    def one(i_pair):
        i, (a, b) = i_pair
        forms = [lambda n: str(n["ports"][0]["lid"]), lambda n: n["description"], lambda n: n["guid"],
                 lambda n: port_guids[n["guid"]]]
        src, dst = forms[i % 4](a), forms[(i + 1) % 4](b)
        ours = sim.run([args.rdmactl, "--json", "fabric", "path", src, dst, "--timeout-ms", "100"], timeout_s=60)
        theirs = sim.run(["ibtracert", str(a["ports"][0]["lid"]), str(b["ports"][0]["lid"])], timeout_s=60)
        return a, b, src, dst, ours, theirs

    t0 = time.monotonic()
    with ThreadPoolExecutor(TOOL_WORKERS // 2) as ex:
        results = list(ex.map(one, enumerate(pairs)))
    took = time.monotonic() - t0
    hops, mismatches = compare_paths(results)
    for m in mismatches[:20]:
        print("  " + m)
    check(not mismatches, f"paths of {len(pairs)} random host pairs agree with ibtracert ({hops} switch hops "
                          f"compared; names by LID, description, node GUID, port GUID; {took:.1f} s); "
                          f"mismatches: {len(mismatches)}")
    # The comparison itself must see a difference: one out port of one path changed.
    a, b, src, dst, ours, theirs = results[0]
    doc_path = json.loads(ours.stdout)
    doc_path["hops"][0]["out_port"] += 1
    ours = type(ours)(ours.args, ours.returncode, json.dumps(doc_path), ours.stderr)
    _, found = compare_paths([(a, b, src, dst, ours, theirs)])
    check(len(found) == 1, f"checker sees one changed hop ({a['description']} -> {b['description']}): {found}")
    return len(mismatches)


def compare_paths(results):
    """Our hops against ibtracert's for each pair: (switch hops compared, mismatches)."""
    mismatches, hops = [], 0
    for a, b, src, dst, ours, theirs in results:
        what = f"{a['description']} -> {b['description']} (asked as {src!r} -> {dst!r})"
        if ours.returncode != 0 or theirs.returncode != 0:
            mismatches.append(f"{what}: rdmactl exit {ours.returncode} {ours.stderr.strip()[-300:]}; "
                              f"ibtracert exit {theirs.returncode}")
            continue
        doc_path = json.loads(ours.stdout)
        mine = [(int(h["guid"], 16), h["in_port"], h["out_port"]) for h in doc_path["hops"]]
        other = parse_ibtracert(theirs.stdout)
        hops += len(mine)
        ends_ok = (doc_path["src"]["guid"] == a["guid"] and doc_path["dst"]["guid"] == b["guid"]
                   and len(doc_path["cables"]) == len(mine) + 1)
        if mine != other or not ends_ok:
            mismatches.append(f"{what}: ours {mine} ends {doc_path['src']['guid']}->{doc_path['dst']['guid']}, "
                              f"ibtracert {other}")
    return hops, mismatches


def port_guids_from_ibnetdiscover(sim):
    """{node GUID: port GUID of port 1} for every CA, from ibnetdiscover's `[1](portguid)` lines."""
    cp = sim.run(["ibnetdiscover"], timeout_s=60, check=True)
    guids, node = {}, None
    for line in cp.stdout.splitlines():
        m = re.match(r"^caguid=0x([0-9a-fA-F]+)", line)
        if m:
            node = int(m.group(1), 16)
        m = re.match(r"^\[1\]\(([0-9a-fA-F]+)\)", line)
        if m and node is not None:
            guids[f"0x{node:016x}"] = f"0x{int(m.group(1), 16):016x}"
            node = None
    return guids


def errors_are_clear(sim, args, check, doc):
    cp, _, _ = rdmactl(sim, args, "path", "no-such-node", "1")
    check(cp.returncode == 2 and 'no node in the sweep is described "no-such-node"' in cp.stderr,
          f"unknown SRC: exit {cp.returncode}: {cp.stderr.strip()}")
    top = max(len(n["lft"]) for n in doc["nodes"] if n.get("lft"))
    cp, _, _ = rdmactl(sim, args, "path", "1", str(top + 5))
    check(cp.returncode == 2 and "no port in the sweep has LID" in cp.stderr,
          f"unassigned DST LID {top + 5}: exit {cp.returncode}: {cp.stderr.strip()}")


def no_route_names_the_switch(sim, args, check, doc):
    """With the subnet manager stopped (so nothing reroutes), a cable on a path is unlinked:
    the path is an error naming the switch and port whose table leads nowhere."""
    hosts = [n for n in doc["nodes"] if n["type"] == "CA"]
    a, b = hosts[0], hosts[-1]
    cp, before, _ = rdmactl(sim, args, "path", a["description"], b["description"])
    if not check(cp.returncode == 0 and before and len(before["hops"]) == 3,
                 f"path {a['description']} -> {b['description']} crosses 3 switches before the cable is pulled"):
        return
    spine = before["hops"][1]
    sim.sm.terminate()
    sim.sm.wait(10)
    sim.console(f'Unlink "{spine["description"]}"[{spine["out_port"]}]')
    cp, _, _ = rdmactl(sim, args, "path", a["description"], b["description"])
    theirs = sim.run(["ibtracert", str(a["ports"][0]["lid"]), str(b["ports"][0]["lid"])], timeout_s=60)
    want = f"{spine['guid']} port {spine['out_port']} has no cable to follow toward LID {b['ports'][0]['lid']}"
    check(cp.returncode == 2 and want in cp.stderr and theirs.returncode != 0,
          f"{spine['description']}[{spine['out_port']}] unlinked, no subnet manager: exit {cp.returncode} "
          f"({cp.stderr.strip()}); ibtracert exit {theirs.returncode}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdmactl", required=True)
    ap.add_argument("--pairs", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    args.rdmactl = os.path.abspath(args.rdmactl)
    simbed.TOOLS.update({"ibroute": "infiniband-diags", "ibtracert": "infiniband-diags"})
    code = simbed.tool_missing()
    if code is not None:
        return code
    check = Check()
    rng = random.Random(15)
    net_dir = simbed.tempfile.mkdtemp(prefix="rdmascope-net-")
    netfile = os.path.join(net_dir, "fattree")
    with open(netfile, "w") as f:
        text, host = gen_net.fattree(LEAVES, HOSTS, SPINES)
        f.write(text)
    mismatches = 0
    try:
        with simbed.Sim(netfile, host) as sim:
            doc = sweep_times(sim, args, check)
            if doc is not None:
                check(len(doc["nodes"]) == LEAVES * HOSTS + LEAVES + SPINES and not doc["unreachable"],
                      f"sweep with routes: {len(doc['nodes'])} nodes, {len(doc['unreachable'])} unreachable")
                mismatches += tables_agree(sim, args, check, doc)
                mismatches += paths_agree(sim, args, check, doc, port_guids_from_ibnetdiscover(sim), rng)
                errors_are_clear(sim, args, check, doc)
                no_route_names_the_switch(sim, args, check, doc)  # last: it stops the subnet manager
    finally:
        simbed.shutil.rmtree(net_dir, ignore_errors=True)
    print(f"mismatches: {mismatches}")
    print(f"{'FAILED' if check.failed else 'PASSED'}: routes, {check.failed} check(s) failed")
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main())
