#!/usr/bin/env python3
"""Benchmark: our full sweep vs the reference tools on the generated fat tree.

usage: fabric_sweep_bench.py --rdmactl PATH [--runs N] [--leaves L --hosts H --spines S] [--sweeps K]

One ibsim + opensm instance on a fat tree (by default 612 nodes: 24 leaves x 24 hosts, 12
spines; the 324-node tree is --leaves 24 --hosts 12 --spines 12, a 1,126-node one --leaves 34
--hosts 32 --spines 14). Our sweeps run with their defaults (at most 4 MADs in flight
toward one node). Side by side, each the median wall time of N runs of a whole process:
  ours       rdmactl fabric counters (discovery + PortCounters/Extended of every port)
  reference  ibnetdiscover, then ibqueryerrors --data; and ibqueryerrors alone
then, with --sweeps K, K consecutive sweeps of the clean tree and how many listed a node
unreachable (it fails when any did), then the same with 2 % of the nodes (CAs) dropping every
MAD. Prints the
figures and the ratio ours / (ibnetdiscover + ibqueryerrors --data); the
target is <= 0.5. It does not fail on time (figures are for reading), only
when a tool fails or our sweep misses a node.
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_net  # noqa: E402
import simbed  # noqa: E402

TIMEOUT_MS = 100


def timed(sim, argv, ok_codes=(0,)):
    for attempt in range(3):
        t0 = time.monotonic()
        cp = sim.run(argv, timeout_s=300)
        ms = (time.monotonic() - t0) * 1000
        if cp.returncode >= 0 or cp.returncode == -9:
            break
        # A reference tool killed by a signal (seen: ibqueryerrors SIGSEGV, rarely): time it again.
        print(f"  note: {' '.join(argv)} died by signal {-cp.returncode}; run again", flush=True)
    if cp.returncode not in ok_codes:
        raise RuntimeError(f"{' '.join(argv)} exited {cp.returncode}: {cp.stderr.strip()[-500:]}")
    return ms, cp


def measure(sim, args, label, expect_nodes):
    ours, ref, qe_alone, inner = [], [], [], []
    unreachable = 0
    for _ in range(args.runs):
        ms, cp = timed(sim, [args.rdmactl, "--json", "fabric", "counters", "--timeout-ms", str(TIMEOUT_MS)])
        doc = json.loads(cp.stdout)
        if len(doc["nodes"]) + len(doc["unreachable"]) < expect_nodes:
            raise RuntimeError(f"our sweep saw {len(doc['nodes'])} nodes + {len(doc['unreachable'])} unreachable "
                               f"of {expect_nodes}")
        unreachable = len(doc["unreachable"])
        ours.append(ms)
        inner.append(doc["sweep_ms"])
        # Reference tools exit non-zero when they find errors or time out: time them anyway.
        a, _ = timed(sim, ["ibnetdiscover", "-t", str(TIMEOUT_MS)], ok_codes=(0, 1))
        b, _ = timed(sim, ["ibqueryerrors", "--data", "-t", str(TIMEOUT_MS)], ok_codes=(0, 1, 2, 255))
        ref.append(a + b)
        c, _ = timed(sim, ["ibqueryerrors", "-t", str(TIMEOUT_MS)], ok_codes=(0, 1, 2, 255))
        qe_alone.append(c)
    o, r, q = statistics.median(ours), statistics.median(ref), statistics.median(qe_alone)
    print(f"{label}:")
    print(f"  ours (rdmactl fabric counters)               {o:8.1f} ms  (sweep inside: {statistics.median(inner):.0f} ms, "
          f"{unreachable} unreachable)")
    print(f"  ibnetdiscover + ibqueryerrors --data         {r:8.1f} ms")
    print(f"  ibqueryerrors alone                          {q:8.1f} ms")
    print(f"  ratio ours / (ibnetdiscover + ibqueryerrors --data) = {o / r:.2f}  (target <= 0.5)")
    print(f"  ratio ours / ibqueryerrors alone                    = {o / q:.2f}", flush=True)
    return o / r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdmactl", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--leaves", type=int, default=24)
    ap.add_argument("--hosts", type=int, default=24)
    ap.add_argument("--spines", type=int, default=12)
    ap.add_argument("--sweeps", type=int, default=0)
    args = ap.parse_args()
    code = simbed.tool_missing()
    if code is not None:
        return code
    net_dir = simbed.tempfile.mkdtemp(prefix="rdmascope-bench-")
    netfile = os.path.join(net_dir, "fattree")
    text, host = gen_net.fattree(args.leaves, args.hosts, args.spines)
    with open(netfile, "w") as f:
        f.write(text)
    try:
        with simbed.Sim(netfile, host) as sim:
            _, cp = timed(sim, [args.rdmactl, "--json", "fabric", "discover"])
            doc = json.loads(cp.stdout)
            n = len(doc["nodes"])
            ports = sum(len(x["ports"]) for x in doc["nodes"])
            print(f"fat tree: {n} nodes, {ports} ports, median of {args.runs} runs, MAD timeout {TIMEOUT_MS} ms")
            measure(sim, args, "clean", n)
            if args.sweeps:
                silent = []
                for _ in range(args.sweeps):
                    _, cp = timed(sim, [args.rdmactl, "--json", "fabric", "counters", "--timeout-ms", str(TIMEOUT_MS)])
                    d = json.loads(cp.stdout)
                    silent.append(len(d["unreachable"]))
                print(f"{args.sweeps} consecutive sweeps of the clean tree: {sum(1 for u in silent if u)} listed a "
                      f"node unreachable (per sweep: {silent})", flush=True)
                if any(silent):
                    raise RuntimeError("a clean sweep listed a node unreachable")
            cas = [x for x in doc["nodes"] if x["type"] == "CA" and x["description"] != host]
            victims = random.Random(10).sample(cas, round(0.02 * n))
            sim.console(*[f'Error "{v["description"]}"[1] 100' for v in victims])
            measure(sim, args, f"{len(victims)} nodes (2 %) dropping every MAD", n)
    finally:
        simbed.shutil.rmtree(net_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
