#!/usr/bin/env python3
"""Checks and sums up fleet_fault_sim --json documents.

usage: fleet_fault_json.py check FILE        # one run's document: exit 1 naming the first bad field
       fleet_fault_json.py check FILE correct  # ... and every fault named exactly (with its candidate), no
                                             # false verdict in clean time
       fleet_fault_json.py matrix DIR        # every DIR/*.json of a matrix run: the table, totals, targets
       fleet_fault_json.py subjects FILE     # fault subjects in a swept-routes topology, as shell assignments

The document's shape is in bench/sim_output.h. The matrix totals apply the
targets of the fleet fault simulator (bench/README.md): >= 95 % of faults
named exactly within 2 intervals, <= 1.2 verdicts per fault on average and
never more than 3, 0 verdicts in clean time, a diagnosis pass <= 1 s CPU.
"""
import glob
import json
import os
import sys


def fail(msg):
    print(f"fleet_fault_json: {msg}", file=sys.stderr)
    sys.exit(1)


def check(doc, where):
    def need(obj, key, types, at):
        if key not in obj:
            fail(f"{where}: {at}{key} missing")
        if not isinstance(obj[key], types):
            fail(f"{where}: {at}{key} is {type(obj[key]).__name__}, expected {types}")
        return obj[key]

    num = (int, float)
    for k in ("clean_false_verdicts",):
        need(doc, k, int, "/")
    for k in ("precision", "recall", "verdicts_per_fault", "diagnosis_cpu_ms_per_pass"):
        need(doc, k, num, "/")
    for i, f in enumerate(need(doc, "faults", list, "/")):
        at = f"/faults/{i}/"
        need(f, "fault", str, at)
        exp = need(f, "expected", dict, at)
        for k in ("scope", "subject", "kind"):
            need(exp, k, str, at + "expected/")
        for j, v in enumerate(need(f, "verdicts", list, at)):
            for k in ("scope", "subject", "kind"):
                need(v, k, str, f"{at}verdicts/{j}/")
            need(v, "confidence", num, f"{at}verdicts/{j}/")
        need(f, "correct", bool, at)
        for k in ("intervals_to_verdict", "intervals_to_close"):
            if k not in f or not (f[k] is None or isinstance(f[k], int)):
                fail(f"{where}: {at}{k} must be a whole number or null")


def load(path):
    try:
        with open(path) as fh:
            doc = json.load(fh)
    except (OSError, ValueError) as e:
        fail(f"{path}: not a JSON document: {e}")
    check(doc, path)
    return doc


def matrix(d):
    files = sorted(glob.glob(os.path.join(d, "*.json")))
    if not files:
        fail(f"{d}: no *.json runs")
    faults = correct = verdicts = 0
    worst = 0
    clean = 0
    clean_minutes = 0.0
    cpu_max = 0.0
    cpu_sum = cpu_n = 0.0
    print(f"{'case':40} {'fault':52} {'expected':70} {'n':>3} {'ok':>3} {'to_v':>5} {'to_c':>5}")
    for path in files:
        case = os.path.basename(path)[:-5]
        try:
            with open(path) as fh:
                doc = json.load(fh)
        except (OSError, ValueError):
            print(f"{case:40}   no document (the run failed or is still running): left out")
            continue
        check(doc, path)
        clean += doc["clean_false_verdicts"]
        clean_minutes += doc.get("clean_minutes", 0)
        cpu_max = max(cpu_max, doc.get("diagnosis_cpu_ms_max", doc["diagnosis_cpu_ms_per_pass"]))
        cpu_sum += doc["diagnosis_cpu_ms_per_pass"]
        cpu_n += 1
        n = len(doc["faults"])
        keys = {(v["scope"], v["subject"], v["kind"]) for f in doc["faults"] for v in f["verdicts"]}
        verdicts += len(keys)
        worst = max(worst, doc.get("max_verdicts_per_fault", 0))
        for f in doc["faults"]:
            faults += 1
            correct += f["correct"]
            e = f["expected"]
            tv = "-" if f["intervals_to_verdict"] is None else f["intervals_to_verdict"]
            tc = "-" if f["intervals_to_close"] is None else f["intervals_to_close"]
            print(f"{case:40} {f['fault']:52} {e['scope'] + ' ' + e['subject'] + ' ' + e['kind']:70} "
                  f"{len(f['verdicts']):>3} {'yes' if f['correct'] else 'NO':>3} {tv:>5} {tc:>5}")
            if not f["correct"]:
                print(f"{'':40}   missed: {f.get('miss', '')}")
        if doc["clean_false_verdicts"]:
            for v in doc.get("clean_verdicts", []):
                print(f"{case:40}   clean-time verdict: {v['scope']}|{v['subject']}|{v['kind']}")
    share = correct / faults if faults else 0
    per = verdicts / faults if faults else 0
    print()
    print(f"runs {len(files)}  faults {faults}  named exactly within 2 intervals {correct} ({share:.0%})")
    print(f"verdicts per fault {per:.2f} (most {worst})  clean-time verdicts {clean} in {clean_minutes:.0f} minutes")
    print(f"diagnosis CPU per pass: mean of runs {cpu_sum / cpu_n if cpu_n else 0:.0f} ms, most {cpu_max:.0f} ms")

    def target(ok, what, why):
        print(f"target {what:48} {'met' if ok else 'MISSED: ' + why}")

    target(share >= 0.95, ">= 95% named exactly within 2 intervals", f"{correct} of {faults}")
    target(per <= 1.2 and worst <= 3, "<= 1.2 verdicts per fault, never > 3", f"{per:.2f} per fault, most {worst}")
    target(clean == 0, "0 verdicts in clean time", f"{clean} verdicts opened without a fault")
    target(cpu_max <= 1000, "a diagnosis pass <= 1 s CPU", f"{cpu_max:.0f} ms at most")


def subjects(path):
    """HOST1 HOST2 (CAs on different leaves), LEAF, SPINE, UPLINK (a leaf's
    port toward a spine), UPLINK2 (another leaf's), NIC1/NIC2 (DEVICE names)."""
    with open(path) as fh:
        doc = json.load(fh)
    plane = doc[0] if isinstance(doc, list) else doc
    nodes = {n["guid"]: n for n in plane["nodes"]}
    cas = [n for n in plane["nodes"] if n["type"] == "CA"]
    sws = [n for n in plane["nodes"] if n["type"] == "Switch"]
    leaf_of = {}
    for ca in cas:
        for p in ca["ports"]:
            if p.get("remote"):
                leaf_of[ca["guid"]] = p["remote"]["guid"]
                break
    leaves = sorted({leaf_of[g] for g in leaf_of})
    spines = sorted(g for g in (s["guid"] for s in sws) if g not in leaves)
    if len(leaves) < 2 or not spines:
        fail(f"{path}: expected a two-level tree (leaves with CAs, spines without)")

    def host(ca):
        words = ca["description"].split()
        return words[0] if words else ca["guid"]

    def dev(ca):
        words = ca["description"].split()
        return words[1] if len(words) > 1 else "mlx5_0"

    def uplink(leaf):
        for p in nodes[leaf]["ports"]:
            r = p.get("remote")
            if r and r["guid"] in spines:
                return f"{leaf}/{p['port']}"
        fail(f"{path}: leaf {leaf} has no cable to a spine")

    by_leaf = {}
    for ca in sorted(cas, key=host):
        by_leaf.setdefault(leaf_of.get(ca["guid"]), []).append(ca)
    a, b = by_leaf[leaves[0]][1], by_leaf[leaves[1]][1]
    c = by_leaf[leaves[-1]][0]
    print(f"HOST1={host(a)} HOST2={host(b)} HOST3={host(c)} DEV1={dev(a)} DEV2={dev(b)} DEV3={dev(c)}")
    print(f"LEAF={leaves[len(leaves) // 2]} SPINE={spines[len(spines) // 2]}")
    print(f"UPLINK={uplink(leaves[2 % len(leaves)])} UPLINK2={uplink(leaves[3 % len(leaves)])}")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "subjects":
        subjects(sys.argv[2])
        return
    correct = len(sys.argv) == 4 and sys.argv[1] == "check" and sys.argv[3] == "correct"
    if (len(sys.argv) != 3 and not correct) or sys.argv[1] not in ("check", "matrix"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    if sys.argv[1] == "check":
        doc = load(sys.argv[2])
        print(f"well-formed: {len(doc['faults'])} faults, precision {doc['precision']:.2f}, recall {doc['recall']:.2f}")
        if correct:
            for f in doc["faults"]:
                if not f["correct"]:
                    fail(f"{sys.argv[2]}: {f['fault']}: not named exactly: {f.get('miss', '')}")
            if doc["clean_false_verdicts"]:
                fail(f"{sys.argv[2]}: {doc['clean_false_verdicts']} verdicts in clean time")
    else:
        matrix(sys.argv[2])


if __name__ == "__main__":
    main()
