#!/usr/bin/env python3
"""The checks an InfiniBand administrator expects from `rdmactl fabric errors`, on ibsim +
opensm (CTest label fabric; issue 46).

usage: fabric_admin_checks.py --rdmactl PATH

(1) On the small net with every cable at full rate (12X QDR): no link is degraded, exit 0.
(2) The same net with the sw1[3] - sw2[3] cable trained at 1X between 12X-capable ports:
    `fabric errors` names that link, once, as link_degraded ("width 1X"), exit 1; and its
    degraded links are exactly the ones iblinkinfo says "Could be" faster.
(3) The sweep keeps at most --node-window MADs in flight toward one node.
(4) ClassPortInfo honoured: ibsim's PMAs say PortCountersExtended and XmitWait (CapMask 0x1300
    on switches, 0x1200 on CAs) and no additional extended counters (CapMask2 0), so a port
    shows port_xmit_wait and the 16-bit symbol_error, which set to its maximum (65535) is
    reported saturated, not 0 and not wrapped. (The 64-bit kind, which ibsim cannot give,
    is the unit test Sweep.CountersFollowEachPmasClassPortInfo.)
(5) A CA whose MADs are all dropped is named in `unreachable` by GUID, description and LID (the
    subnet administrator's LinkRecord and NodeRecord), and every other node is still listed.
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_net  # noqa: E402
import simbed  # noqa: E402

NODE_WINDOW = 3


def errors(sim, args):
    cp = sim.run([args.rdmactl, "--json", "fabric", "errors", "--node-window", str(NODE_WINDOW)], timeout_s=120)
    if not cp.stdout.strip().startswith("{"):
        print(f"  rdmactl fabric errors exit {cp.returncode}: {cp.stderr.strip()[-800:]}")
        return cp.returncode, {"findings": [], "status": "?"}
    return cp.returncode, json.loads(cp.stdout)


def degraded(doc):
    return sorted((f["guid"], f["port"], f["remote"]["guid"], f["remote"]["port"], f.get("detail", ""))
                  for f in doc["findings"] if f["counter"] == "link_degraded")


def could_be(sim):
    """iblinkinfo's links that "Could be" faster, as {(lid, port)} of both ends."""
    cp = sim.run(["iblinkinfo"], timeout_s=60)
    ends = set()
    for line in cp.stdout.splitlines():
        m = re.search(r"^\s*(?:0x[0-9a-f]+\s+)?(\d+)\s+(\d+)\[.*==>\s+(\d+)\s+(\d+)\[.*\((.*)\)\s*$", line)
        if m and "Could be" in m.group(5):
            ends.add((int(m.group(1)), int(m.group(2))))
            ends.add((int(m.group(3)), int(m.group(4))))
    return cp.returncode, ends


def run_net(args, text, host, body):
    net_dir = simbed.tempfile.mkdtemp(prefix="rdmascope-net-")
    netfile = os.path.join(net_dir, "net")
    with open(netfile, "w") as f:
        f.write(text)
    try:
        with simbed.Sim(netfile, host) as sim:
            body(sim)
    finally:
        simbed.shutil.rmtree(net_dir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdmactl", required=True)
    args = ap.parse_args()
    code = simbed.tool_missing()
    if code is not None:
        return code
    check = simbed.Check()

    def clean(sim):
        rc, doc = errors(sim, args)
        check(rc == 0 and not degraded(doc), f"full-rate net: fabric errors exit {rc}, degraded links {degraded(doc)}")
        rc_ib, slow = could_be(sim)
        check(rc_ib == 0 and not slow, f"full-rate net: iblinkinfo says no link could be faster ({sorted(slow)})")

    def slow_trunk(sim):
        rc, doc = errors(sim, args)
        got = degraded(doc)
        print(f"  degraded: {got}")
        check(rc == 1 and len(got) == 1 and "width 1X" in got[0][4],
              f"1X trunk between 12X-capable ports: one link_degraded finding naming width 1X, exit {rc}")
        lids = {}
        cp = sim.run([args.rdmactl, "--json", "fabric", "discover"], timeout_s=120)
        for n in json.loads(cp.stdout)["nodes"]:
            for p in n["ports"]:
                lids[(n["guid"], p["port"])] = p["lid"]
        ours = set()
        for a_guid, a_port, b_guid, b_port, _ in got:
            ours.add((lids.get((a_guid, a_port)), a_port))
            ours.add((lids.get((b_guid, b_port)), b_port))
        rc_ib, theirs = could_be(sim)
        check(rc_ib == 0 and ours == theirs,
              f"degraded ends (lid, port) agree with iblinkinfo's 'Could be': ours {sorted(ours)}, "
              f"iblinkinfo {sorted(theirs)}")
        text = sim.run([args.rdmactl, "fabric", "errors", "--node-window", str(NODE_WINDOW)], timeout_s=120).stdout
        print("  " + "\n  ".join(text.strip().splitlines()))
        cp = sim.run([args.rdmactl, "--json", "fabric", "counters", "--node-window", str(NODE_WINDOW)], timeout_s=120)
        mads = json.loads(cp.stdout)["mads"]
        check(1 <= mads["max_in_flight_per_node"] <= NODE_WINDOW,
              f"--node-window {NODE_WINDOW}: at most {mads['max_in_flight_per_node']} MADs in flight toward one node "
              f"({mads['sent']} sent, {mads['backoffs']} back-offs)")

    def saturation(sim):
        cp = sim.run([args.rdmactl, "--json", "fabric", "counters"], timeout_s=120)
        doc = json.loads(cp.stdout)
        sw = next(n for n in doc["nodes"] if n["description"] == "sw2")
        port = next(p for p in sw["ports"] if p["port"] == 3)
        print(f"  sw2 port 3 counters (PMA without additional extended counters): {json.dumps(port['counters'])}")
        check("port_xmit_wait" in port["counters"] and "symbol_error" in port["counters"],
              "ibsim's PMA counts XmitWait: port_xmit_wait present; symbol_error from the 16-bit PortCounters")
        for value in (65534, 65535):
            sim.console(f'PerformanceSet "sw2"[3] PortCounters.SymbolErrorCounter={value}')
            cp = sim.run([args.rdmactl, "--json", "fabric", "counters"], timeout_s=120)
            sw = next(n for n in json.loads(cp.stdout)["nodes"] if n["description"] == "sw2")
            port = next(p for p in sw["ports"] if p["port"] == 3)
            got, sat = port["counters"].get("symbol_error"), "symbol_error" in port.get("saturated", [])
            check(got == value and sat == (value == 65535),
                  f"SymbolErrorCounter set to {value}: reported {got}, saturated {sat}")
        sim.console('PerformanceSet "sw2"[3] PortCounters.SymbolErrorCounter=0')

    def silent_named(sim):
        cp = sim.run([args.rdmactl, "--json", "fabric", "discover"], timeout_s=120)
        clean_doc = json.loads(cp.stdout)
        victim = next(n for n in clean_doc["nodes"] if n["description"] == "hca3")
        vport = victim["ports"][0]
        sim.console(f'Error "hca3"[{vport["port"]}] 100')
        cp = sim.run([args.rdmactl, "--json", "fabric", "discover", "--timeout-ms", "50", "--retries", "1"],
                     timeout_s=120)
        sim.console(f'Error "hca3"[{vport["port"]}] 0')
        doc = json.loads(cp.stdout)
        print(f"  unreachable: {json.dumps(doc['unreachable'])}")
        named = [u for u in doc["unreachable"] if u.get("guid") == victim["guid"]]
        check(len(doc["unreachable"]) == 1 and len(named) == 1 and named[0].get("description") == "hca3" and
              named[0].get("lid") == vport["lid"],
              f"MADs to hca3 dropped: named in unreachable as {victim['guid']} \"hca3\" lid {vport['lid']}")
        others = {n["guid"] for n in clean_doc["nodes"]} - {victim["guid"]}
        check(others <= {n["guid"] for n in doc["nodes"]}, f"every other node listed ({len(others)})")

    text, host = gen_net.small()
    run_net(args, text, host, clean)
    run_net(args, text, host, saturation)
    run_net(args, text, host, silent_named)
    text, host = gen_net.small(slow_trunk=True)
    run_net(args, text, host, slow_trunk)
    print(f"{'FAILED' if check.failed else 'PASSED'}: {check.failed} check(s) failed")
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main())
