#!/usr/bin/env python3
"""Sweeps an ibsim fat tree under opensm into a fleet_fault_sim topology.

usage: fleet_fault_topology.py --rdmactl PATH [--leaves 24 --hosts 12 --spines 12] OUT

Starts the fabric test bed (tests/fabric/simbed.py: ibsim + opensm, which
routes it), runs `rdmactl --json fabric discover --routes` as the first host
and writes the document to OUT: the input of `fleet_fault_sim --topology`.
The defaults are the 324-node tree (24 leaves x 12 hosts + 24 leaves + 12
spines) of the acceptance matrix. Exit 77 when the test bed's tools are
missing (the message names the packages).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fabric"))
import gen_net  # noqa: E402
import simbed  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdmactl", required=True)
    ap.add_argument("--leaves", type=int, default=24)
    ap.add_argument("--hosts", type=int, default=12)
    ap.add_argument("--spines", type=int, default=12)
    ap.add_argument("out")
    a = ap.parse_args()
    missing = simbed.tool_missing()
    if missing is not None:
        return missing
    text, host = gen_net.fattree(a.leaves, a.hosts, a.spines)
    with _netfile(text) as netfile:
        with simbed.Sim(netfile, host) as sim:
            cp = sim.run([a.rdmactl, "--json", "fabric", "discover", "--routes"], timeout_s=300, check=True)
    doc = json.loads(cp.stdout)
    switches = [n for n in doc["nodes"] if n["type"] == "Switch"]
    if not switches or any("lft" not in s for s in switches):
        print("fleet_fault_topology: the sweep has switches without \"lft\" (does this rdmactl know --routes?)",
              file=sys.stderr)
        return 1
    with open(a.out, "w") as f:
        json.dump(doc, f)
    print(f"{a.out}: {len(doc['nodes'])} nodes, {len(switches)} switches with forwarding tables")
    return 0


class _netfile:
    """The netfile in a fresh temporary folder, removed afterwards."""

    def __init__(self, text):
        import tempfile
        self.dir = tempfile.mkdtemp(prefix="fleet-fault-net-")
        self.path = os.path.join(self.dir, "fattree")
        with open(self.path, "w") as f:
            f.write(text)

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        import shutil
        shutil.rmtree(self.dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
