#!/usr/bin/env python3
"""Writes ibsim netfiles for the fabric test bed.

usage: gen_net.py small|twoport|fattree [--leaves L --hosts H --spines S] OUT

small:   two switches, three single-port CAs.
twoport: two switches joined by two cables, two dual-port CAs (one cable to each switch).
fattree: a two-level fat tree: L leaf switches with H hosts each, every leaf
         cabled once to each of S spines (L*H + L + S nodes).
The first CA record is the one the tools run as (SIM_HOST); it is printed on stdout.
Every cable runs at the full rate its ports support under ibsim (12X, QDR: "w=12 s=4"), so
that a clean net has no degraded link; record(..., slow=...) leaves chosen ports at 1X.
"""
import argparse


FULL_RATE = "w=12 s=4"  # ibsim's ports support 1X..12X and SDR..QDR; it enables what the netfile says
SLOW_RATE = "w=1 s=4"   # a cable trained at 1X between 12X-capable ports: a degraded link


def record(kind, nports, name, links, slow=()):
    """slow: the local port numbers whose cables run at SLOW_RATE (name both ends)."""
    lines = [f'{kind} {nports} "{name}"' + (" enhanced port 0" if kind == "Switch" else "")]
    lines += [f'[{p}] "{rname}"[{rport}] {SLOW_RATE if p in slow else FULL_RATE}' for p, rname, rport in links]
    return "\n".join(lines) + "\n\n"


def small(slow_trunk=False):
    """slow_trunk: the sw1[3] - sw2[3] cable at 1X."""
    trunk = (3,) if slow_trunk else ()
    out = record("Hca", 1, "hca1", [(1, "sw1", 1)])
    out += record("Switch", 8, "sw1", [(1, "hca1", 1), (2, "hca2", 1), (3, "sw2", 3)], slow=trunk)
    out += record("Switch", 8, "sw2", [(1, "hca3", 1), (3, "sw1", 3)], slow=trunk)
    out += record("Hca", 1, "hca2", [(1, "sw1", 2)])
    out += record("Hca", 1, "hca3", [(1, "sw2", 1)])
    return out, "hca1"


def twoport():
    out = record("Hca", 2, "hca1", [(1, "sw1", 1), (2, "sw2", 2)])
    out += record("Switch", 8, "sw1", [(1, "hca1", 1), (2, "hca2", 1), (3, "sw2", 3), (5, "sw2", 5)])
    out += record("Switch", 8, "sw2", [(1, "hca2", 2), (2, "hca1", 2), (3, "sw1", 3), (5, "sw1", 5)])
    out += record("Hca", 2, "hca2", [(1, "sw1", 2), (2, "sw2", 1)])
    return out, "hca1"


def fattree(leaves, hosts, spines):
    host = lambda l, h: f"h{l:02d}-{h:02d}"
    out = ""
    for l in range(leaves):
        for h in range(hosts):
            out += record("Hca", 1, host(l, h), [(1, f"leaf{l:02d}", h + 1)])
    for l in range(leaves):
        links = [(h + 1, host(l, h), 1) for h in range(hosts)]
        links += [(hosts + s + 1, f"spine{s:02d}", l + 1) for s in range(spines)]
        out += record("Switch", hosts + spines, f"leaf{l:02d}", links)
    for s in range(spines):
        out += record("Switch", leaves, f"spine{s:02d}", [(l + 1, f"leaf{l:02d}", hosts + s + 1) for l in range(leaves)])
    return out, host(0, 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["small", "twoport", "fattree"])
    ap.add_argument("out")
    ap.add_argument("--leaves", type=int, default=24)
    ap.add_argument("--hosts", type=int, default=24)
    ap.add_argument("--spines", type=int, default=12)
    a = ap.parse_args()
    if a.kind == "fattree":
        text, first = fattree(a.leaves, a.hosts, a.spines)
    else:
        text, first = {"small": small, "twoport": twoport}[a.kind]()
    with open(a.out, "w") as f:
        f.write(text)
    print(first)


if __name__ == "__main__":
    main()
