#!/usr/bin/env python3
"""Agents on simulated hosts, a collector, and a subnet that loses a cable.

usage: fabric_collector.py --build-dir BUILD

ibsim + opensm on a small fat tree (3 leaves x 3 hosts, 2 spines). Agents run
once as simulated hosts (SIM_HOST; a fixture sysfs tree whose one IB port is
the shim's ibsim0, since ibsim has no verbs and the shim's own sysfs is not the
host's) and report to a private collector with token roles: each host its own
node token, the sweeping host a sweep token (`sweep NODE TOKEN`).
Checks: every agent's report carries its neighbour (the leaf switch and port
ibnetdiscover shows); the pinglist of one host groups its leaf mates
(printed); `Unlink` of a cable makes the next sweep's report open link_down
naming both ends; `ReLink` closes it; a host with a node token that sweeps
is refused (its agent exits non-zero) and the switches keep their names;
the traced path between hosts of two leaves (GET /api/v1/fabric/path) crosses
the switches ibtracert walks, or, while sweeps store no forwarding tables,
answers 404 naming the switch without one.
"""
import argparse
import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_net  # noqa: E402
import simbed  # noqa: E402
import topocheck  # noqa: E402


def token_of(host):
    return f"token-of-{host}-0123"


def write_tokens(workdir, hosts, sweeper):
    """The collector's token file (node tokens, the sweeper's with the sweep role) and one agent file per host."""
    path = os.path.join(workdir, "collector.tokens")
    with open(path, "w") as f:
        for h in hosts:
            f.write(("sweep " if h == sweeper else "") + f"{h} {token_of(h)}\n")
    for h in hosts:
        with open(os.path.join(workdir, "token-" + h), "w") as f:
            f.write(token_of(h) + "\n")
    return path


class Collector:
    def __init__(self, build, workdir, token_file):
        self.bin = os.path.join(build, "bin", "rdmascope-collector")
        self.dir = workdir
        for _ in range(5):
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            self.url = f"http://127.0.0.1:{port}"
            self.log = open(os.path.join(workdir, "collector.log"), "w")
            self.proc = subprocess.Popen([self.bin, "--listen", f"127.0.0.1:{port}", "--db",
                                          os.path.join(workdir, "db.sqlite"), "--token-file", token_file,
                                          "--db-synchronous", "normal"],
                                         stdout=self.log, stderr=subprocess.STDOUT)
            try:
                simbed.wait_for(lambda: self.proc.poll() is not None or self._healthy(), 15, "collector /healthz")
            except TimeoutError:
                pass
            if self.proc.poll() is None and self._healthy():
                return
            self.stop()
        raise RuntimeError("collector did not start; log in " + workdir)

    def _healthy(self):
        try:
            with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                return r.status == 200
        except OSError:
            return False

    def get(self, path, token=None):
        req = urllib.request.Request(self.url + path, headers={"Authorization": f"Bearer {token}"} if token else {})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.load(r)

    def get_status(self, path):
        """(HTTP status, JSON body) of a GET, errors included."""
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def agent_once(sim, args, collector, host, sysroot, workdir, sweep=False, expect_ok=True):
    spool = os.path.join(workdir, "spool-" + host)
    os.makedirs(spool, exist_ok=True)
    argv = [os.path.join(args.build_dir, "bin", "rdmascope-agent"), "--once", "--collector", collector.url,
            "--node-name", host, "--sysfs-root", sysroot, "--spool-dir", spool,
            "--token-file", os.path.join(workdir, "token-" + host)]
    if sweep:
        argv += ["--fabric-sweep-interval", "1"]
    cp = sim.run(argv, timeout_s=60, host=host)
    if expect_ok and cp.returncode != 0:
        raise RuntimeError(f"agent {host} exited {cp.returncode}: {cp.stderr[-1500:]}")
    return cp


def check_path(sim, collector, check):
    """GET /api/v1/fabric/path between hosts of two leaves, by LID and GUID. With the
    switches' tables stored (the sweep read routes), its switches are those ibtracert
    walks; without, it answers 404 naming the switch that has no table."""
    nodes = collector.get("/api/v1/fabric/nodes")["nodes"]

    def host(desc):
        n = next(n for n in nodes if n["type"] == "CA" and n["description"].split()[0] == desc)
        return n, next(p["lid"] for p in n["ports"] if p.get("lid"))
    (src, src_lid), (dst, dst_lid) = host("h00-00"), host("h02-00")
    status, body = collector.get_status(f"/api/v1/fabric/path?src=lid:{src_lid}&dst={dst['guid']}")
    db = sqlite3.connect(f"file:{os.path.join(collector.dir, 'db.sqlite')}?mode=ro", uri=True)
    try:
        tables = db.execute("SELECT COUNT(*) FROM fabric_lfts").fetchone()[0]
    finally:
        db.close()
    if tables == 0:
        check(status == 404 and body.get("error") == "no route" and "no forwarding table" in body.get("detail", ""),
              f"path h00-00 -> h02-00 without stored tables: 404 naming the switch without one ({status} {body})")
        return
    trace = sim.run(["ibtracert", str(src_lid), str(dst_lid)], check=True).stdout
    want = re.findall(r'->\s*switch port.*"([^"]*)"\s*$', trace, re.M)
    got = [h["description"] for h in body.get("hops", [])]
    print(f"  path h00-00 -> h02-00: {got}; ibtracert: {want}")
    check(status == 200 and got == want and body["dst"]["guid"] == dst["guid"],
          f"path h00-00 -> h02-00 crosses the switches ibtracert walks ({status})")


class Check:
    failed = 0

    def __call__(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what, flush=True)
        Check.failed += 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    args = ap.parse_args()
    code = simbed.tool_missing()
    if code is not None:
        return code
    check = Check()
    workdir = tempfile.mkdtemp(prefix="rdmascope-fabric-collector-")
    netfile = os.path.join(workdir, "fattree")
    text, sweeper = gen_net.fattree(3, 3, 2)
    with open(netfile, "w") as f:
        f.write(text)
    collector = None
    try:
        with simbed.Sim(netfile, sweeper) as sim:
            hosts = ["h00-00", "h00-01", "h00-02", "h01-00", "h02-00"]
            collector = Collector(args.build_dir, workdir, write_tokens(workdir, sorted(set(hosts) | {sweeper}), sweeper))
            sysroot = simbed.fixture_root(workdir)
            ibnd = topocheck.parse_ibnetdiscover(sim.run(["ibnetdiscover"], check=True).stdout)
            by_desc = {v["description"]: g for g, v in ibnd[0].items()}
            for h in hosts:
                agent_once(sim, args, collector, h, sysroot, workdir, sweep=(h == sweeper))
            # Neighbours: each host's leaf switch and port, as ibnetdiscover sees the cable.
            neigh = {n["node"]: n for n in collector.get("/api/v1/fabric/neighbours")["neighbours"]}
            for h in hosts:
                leaf, port = f"leaf{h[1:3]}", int(h[4:]) + 1
                n = neigh.get(h)
                check(n is not None and n["switch_guid"] == f"0x{by_desc[leaf]:016x}" and n["switch_port"] == port
                      and n["switch_description"] == leaf and n["state"] == "ACTIVE",
                      f"{h} reports its neighbour {leaf}[{port}]: {n and (n['switch_description'], n['switch_port'], n['switch_guid'])}")
            node = collector.get("/api/v1/nodes/h00-01")
            check(len(node.get("neighbours", [])) == 1 and "symbol_error" in node["neighbours"][0]["counters"],
                  "the node view of h00-01 carries its neighbour port with counters")
            pl = collector.get("/api/v1/pinglist?node=h00-00", token_of("h00-00"))
            print("  pinglist of h00-00: " + json.dumps({"group": pl["group"], "targets": [
                {k: t[k] for k in ("node", "group", "same_group")} for t in pl["targets"]]}))
            same = sorted(t["node"] for t in pl["targets"] if t["same_group"])
            check(pl["group"] == f"leaf:0x{by_desc['leaf00']:016x}" and same == ["h00-01", "h00-02"],
                  f"pinglist of h00-00 groups its leaf mates: group {pl['group']}, same group {same}")
            fab = collector.get("/api/v1/fabric/nodes")
            check(len(fab["nodes"]) == len(ibnd[0]), f"the sweep stored every node: {len(fab['nodes'])} of {len(ibnd[0])}")
            check_path(sim, collector, check)

            # Unlink a leaf-spine cable: the next sweep's report opens link_down naming both ends.
            sim.console('Unlink "leaf01"[4]')
            agent_once(sim, args, collector, sweeper, sysroot, workdir, sweep=True)
            events = collector.get("/api/v1/events?open=1&kind=link_down")["events"]
            print("  open link_down: " + json.dumps([{k: e[k] for k in ("node", "peer", "status", "detail")} for e in events]))
            check(len(events) == 1 and {events[0]["node"], events[0]["peer"]} == {"leaf01", "spine00"},
                  "Unlink \"leaf01\"[4]: link_down opened naming leaf01 and spine00")
            sim.console('ReLink "leaf01"[4]')
            deadline = time.monotonic() + 60
            rdmactl = os.path.join(args.build_dir, "bin", "rdmactl")
            while time.monotonic() < deadline:
                doc = json.loads(sim.run([rdmactl, "--json", "fabric", "discover"], check=True).stdout)
                leaf = next(n for n in doc["nodes"] if n["description"] == "leaf01")
                if any(p["port"] == 4 and p["state"] == "ACTIVE" and p["remote"] for p in leaf["ports"]):
                    break
                time.sleep(0.5)
            agent_once(sim, args, collector, sweeper, sysroot, workdir, sweep=True)
            events = collector.get("/api/v1/events?open=1&kind=link_down")["events"]
            closed = [e for e in collector.get("/api/v1/events?open=0&kind=link_down")["events"] if not e["open"]]
            check(not events and len(closed) == 1, f"ReLink: link_down closed ({len(closed)} closed, {len(events)} open)")

            # A host whose token has no sweep role: its sweeping report is refused, nothing of it stored.
            before = collector.get("/api/v1/fabric/nodes")["nodes"]
            rogue = next(h for h in hosts if h != sweeper)
            cp = agent_once(sim, args, collector, rogue, sysroot, workdir, sweep=True, expect_ok=False)
            after = collector.get("/api/v1/fabric/nodes")["nodes"]
            said = [line for line in (cp.stdout + cp.stderr).splitlines() if "sweep role" in line][:1]
            print("  node token sweeping: exit " + str(cp.returncode) + ": " +
                  (said[0][-240:] if said else (cp.stdout + cp.stderr)[-400:]))
            check(cp.returncode != 0 and bool(said)
                  and [n["last_seen_at_ms"] for n in after] == [n["last_seen_at_ms"] for n in before],
                  f"{rogue} sweeping with a node token: refused (exit {cp.returncode}), fabric unchanged")
    finally:
        if collector:
            collector.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"{'FAILED' if Check.failed else 'PASSED'}: {Check.failed} check(s) failed")
    return 1 if Check.failed else 0


if __name__ == "__main__":
    sys.exit(main())
