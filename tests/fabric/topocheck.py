#!/usr/bin/env python3
"""Compares `rdmactl --json fabric discover` with `ibnetdiscover` output.

usage: topocheck.py OURS.json IBNETDISCOVER.txt
Node for node (GUID, type, description, number of ports, switch LID / CA port
LIDs) and link for link (both ends' GUID and port, undirected). Prints every
difference and exits 1 on any; prints "agree: N nodes, M links" and exits 0.
"""
import json
import re
import sys

HEADER = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-fA-F]+)"\s*#\s*"(.*?)"(.*)$')
SW_PORT = re.compile(r'^\[(\d+)\]\s+"[SHR]-([0-9a-fA-F]+)"\[(\d+)\]')
CA_PORT = re.compile(r'^\[(\d+)\]\(([0-9a-fA-F]+)\)\s+"[SHR]-([0-9a-fA-F]+)"\[(\d+)\].*?#\s*lid (\d+)')
TYPES = {"Switch": "Switch", "Ca": "CA", "Rt": "Router"}


def parse_ibnetdiscover(text):
    nodes, links = {}, set()
    cur = None
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            kind, nports, _, guid, desc, rest = m.groups()
            cur = int(guid, 16)
            lids = {}
            lm = re.search(r"\blid (\d+)", rest)
            if kind == "Switch" and lm:
                lids[0] = int(lm.group(1))
            nodes[cur] = {"type": TYPES[kind], "description": desc, "num_ports": int(nports), "lids": lids}
            continue
        if cur is None:
            continue
        m = CA_PORT.match(line)
        if m:
            port, _, rguid, rport, lid = m.groups()
            nodes[cur]["lids"][int(port)] = int(lid)
            links.add(frozenset([(cur, int(port)), (int(rguid, 16), int(rport))]))
            continue
        m = SW_PORT.match(line)
        if m:
            port, rguid, rport = m.groups()
            links.add(frozenset([(cur, int(port)), (int(rguid, 16), int(rport))]))
    return nodes, links


def parse_ours(doc):
    nodes, links = {}, set()
    for n in doc["nodes"]:
        guid = int(n["guid"], 16)
        lids = {}
        if n["type"] == "Switch":
            lids[0] = n["lid"]
        for p in n["ports"]:
            if n["type"] != "Switch":
                lids[p["port"]] = p["lid"]
            if p.get("remote"):
                links.add(frozenset([(guid, p["port"]), (int(p["remote"]["guid"], 16), p["remote"]["port"])]))
        nodes[guid] = {"type": n["type"], "description": n["description"], "num_ports": n["num_ports"], "lids": lids}
    return nodes, links


def end(e):
    return f"0x{e[0]:016x}[{e[1]}]"


def compare(ours, theirs):
    (on, ol), (tn, tl) = ours, theirs
    diffs = []
    for g in sorted(set(on) | set(tn)):
        if g not in on:
            diffs.append(f"node 0x{g:016x} \"{tn[g]['description']}\": only in ibnetdiscover")
        elif g not in tn:
            diffs.append(f"node 0x{g:016x} \"{on[g]['description']}\": only in ours")
        else:
            for k in ("type", "description", "num_ports"):
                if on[g][k] != tn[g][k]:
                    diffs.append(f"node 0x{g:016x} {k}: ours {on[g][k]!r}, ibnetdiscover {tn[g][k]!r}")
            for port, lid in tn[g]["lids"].items():
                if on[g]["lids"].get(port) != lid:
                    diffs.append(f"node 0x{g:016x} port {port} lid: ours {on[g]['lids'].get(port)}, ibnetdiscover {lid}")
    for l in sorted(ol ^ tl, key=lambda s: sorted(s)):
        a = sorted(l)
        side = "ours" if l in ol else "ibnetdiscover"
        diffs.append(f"link {end(a[0])} <-> {end(a[-1])}: only in {side}")
    return diffs


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        ours = parse_ours(json.load(f))
    with open(sys.argv[2]) as f:
        theirs = parse_ibnetdiscover(f.read())
    if not theirs[0]:
        print("ibnetdiscover output holds no node records", file=sys.stderr)
        return 2
    diffs = compare(ours, theirs)
    for d in diffs:
        print(d)
    if diffs:
        print(f"DIFFER: {len(diffs)} difference(s)")
        return 1
    print(f"agree: {len(ours[0])} nodes, {len(ours[1])} links")
    return 0


if __name__ == "__main__":
    sys.exit(main())
