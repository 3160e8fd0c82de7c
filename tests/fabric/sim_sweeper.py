#!/usr/bin/env python3
"""A simulated fat tree swept by one agent for a collector, and a cable fault on command.

usage: sim_sweeper.py --build-dir BUILD --collector URL [--token-file FILE]
                      [--node-name NAME] [--interval S] [--leaves L --hosts H --spines S]
                      [--info FILE] [--echo] [--wait-collector S]
       sim_sweeper.py --check        (exit 0 when ibsim, opensm and the shim are there,
                                      else the skip code 77, or 1 under CI=true)

Starts ibsim + opensm (tests/fabric/simbed.py) on a two-level fat tree
(default 4 leaves x 4 hosts, 2 spines), then, once the collector answers
/healthz (deadline --wait-collector, default 600 s), one rdmascope-agent under
the umad shim as the first host, sweeping the subnet with routes every
--interval seconds and reporting at that interval as --node-name (default
fabric-sweep). The collector must accept it as a sweeper (a token line
`sweep NAME TOKEN`, or --no-auth). Its only rail is named "ib", so agents of
other rails never get it in their pinglists and it probes nobody.

The faulty cable is the first inter-switch one: leaf01's first uplink to
spine00. --info FILE gets, once the subnet is up, one JSON object:
{"subject": the diagnosis subject of that cable ("0xA/P<->0xB/Q", ends in
text order), "description": its ends as the collector describes them,
"ends": ["leaf01[5]", "spine00[2]"], "switches", "cas", "links": counts of
the simulated subnet, "node": the sweeper's name}.

Commands, one per line on stdin:
  fabric-fault: inject   the SymbolErrorCounter of both ends of that cable
                         rises by 20 every second (a dirty cable), until
  fabric-fault: clear    it stops rising and both ends are reset to 0.
Other lines are copied to stdout with --echo (a filter on the lab's output
stream), else ignored. Each command is answered with one line on stdout in
the fault cycle's style ("fault-cycle [HH:MM:SS] host: ..."). End of stdin,
SIGTERM or SIGINT stop the agent, opensm and ibsim by their PIDs (nothing is
left running) and remove the work folder; exit 0. Exit 1 naming what did not
come up (its log's tail on stderr); 77 when the test bed's tools are missing.
"""
import argparse
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_net  # noqa: E402
import simbed  # noqa: E402

STEP = 20          # SymbolErrorCounter rise per second while the fault holds (threshold: 10 per sweep)
COUNTER_MAX = 65535  # a 16-bit counter


def say(text):
    print(f"fault-cycle [{time.strftime('%H:%M:%S')}] host: {text}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(url):
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def fault_link(sim, rdmactl, hosts):
    """The cable leaf01[hosts+1] <-> spine00[2] as the collector names it, and the subnet's counts."""
    doc = json.loads(sim.run([rdmactl, "--json", "fabric", "discover"], check=True).stdout)
    by_desc = {n["description"]: n for n in doc["nodes"]}
    ends = [("leaf01", hosts + 1), ("spine00", 2)]
    texts = []
    for desc, port in ends:
        node = by_desc.get(desc)
        if node is None:
            raise RuntimeError(f"rdmactl fabric discover did not find {desc}")
        texts.append((f"0x{int(node['guid'], 16):016x}/{port}", f"{desc} port {port}"))
    texts.sort()
    links = sum(1 for n in doc["nodes"] for p in n["ports"] if p.get("remote")) // 2
    return {
        "subject": texts[0][0] + "<->" + texts[1][0],
        "description": texts[0][1] + " <-> " + texts[1][1],
        "ends": [f"{d}[{p}]" for d, p in ends],
        "switches": sum(1 for n in doc["nodes"] if n["type"] == "Switch"),
        "cas": sum(1 for n in doc["nodes"] if n["type"] != "Switch"),
        "links": links,
    }, ends


def read_lines(stream, q):
    for line in stream:
        q.put(line)
    q.put(None)


class Sweeper:
    def __init__(self, args, workdir, sim):
        self.args, self.dir, self.sim, self.proc = args, workdir, sim, None
        self.log = os.path.join(workdir, "agent.log")

    def start(self):
        argv = [os.path.join(self.args.build_dir, "bin", "rdmascope-agent"), "--collector", self.args.collector,
                "--node-name", self.args.node_name, "--sysfs-root", simbed.fixture_root(self.dir),
                "--spool-dir", os.path.join(self.dir, "spool"), "--interval", str(self.args.interval),
                "--fabric-sweep-interval", str(self.args.interval), "--inventory-interval", "60",
                "--rails", "ib=ibsim0/1", "--control-port", str(free_port()),
                # Its control port stays on loopback; peers would use its name (control_host
                # unset): a collector behind a forward sees the reports come from elsewhere.
                "--control-bind", "127.0.0.1"]
        if self.args.token_file:
            argv += ["--token-file", self.args.token_file]
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                         env=self.sim.env(), cwd=self.sim.dir)

    def tail(self):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()[-1500:]
        except OSError:
            return ""

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


class Fault:
    """SymbolErrorCounter rising on both ends of one cable while held."""

    def __init__(self, sim, ends):
        self.sim, self.ends, self.value, self.held, self.next_step = sim, ends, 0, False, 0.0

    def _set(self, value):
        self.value = value
        self.sim.console(*[f'PerformanceSet "{d}"[{p}] PortCounters.SymbolErrorCounter={value}' for d, p in self.ends])

    def inject(self):
        self.held, self.next_step = True, 0.0
        self.tick()
        names = " and ".join(f"{d}[{p}]" for d, p in self.ends)
        say(f"SymbolErrorCounter on {names} (ibsim) now rises by {STEP} every second")

    def clear(self):
        self.held = False
        self._set(0)
        names = " and ".join(f"{d}[{p}]" for d, p in self.ends)
        say(f"SymbolErrorCounter on {names} (ibsim) stopped rising and was reset to 0")

    def tick(self):
        now = time.monotonic()
        if self.held and now >= self.next_step:
            self.next_step = now + 1.0
            self._set(min(self.value + STEP, COUNTER_MAX))


def run(args):
    workdir = tempfile.mkdtemp(prefix="rdmascope-sim-sweeper-")
    sim = sweeper = None
    lines = queue.Queue()
    threading.Thread(target=read_lines, args=(sys.stdin, lines), daemon=True).start()
    try:
        netfile = os.path.join(workdir, "fattree")
        text, first = gen_net.fattree(args.leaves, args.hosts, args.spines)
        with open(netfile, "w") as f:
            f.write(text)
        sim = simbed.Sim(netfile, first)
        info, ends = fault_link(sim, os.path.join(args.build_dir, "bin", "rdmactl"), args.hosts)
        info["node"] = args.node_name
        if args.info:
            tmp = args.info + ".tmp"
            with open(tmp, "w") as f:
                json.dump(info, f)
            os.replace(tmp, args.info)
        print(f"sim-sweeper: subnet up ({args.leaves} leaves x {args.hosts} hosts, {args.spines} spines: "
              f"{info['switches']} switches, {info['cas']} hosts, {info['links']} links); waiting for the collector "
              f"at {args.collector}", file=sys.stderr, flush=True)
        fault = Fault(sim, ends)
        sweeper = Sweeper(args, workdir, sim)
        deadline = time.monotonic() + args.wait_collector
        while True:
            if sweeper.proc is None and healthy(args.collector):
                sweeper.start()
                print(f"sim-sweeper: {args.node_name} sweeps the subnet every {args.interval} s for {args.collector}",
                      file=sys.stderr, flush=True)
            if sweeper.proc is None and time.monotonic() > deadline:
                raise RuntimeError(f"the collector at {args.collector} did not answer /healthz "
                                   f"within {args.wait_collector} s")
            if sweeper.proc is not None and sweeper.proc.poll() is not None:
                raise RuntimeError(f"the sweeping agent exited with {sweeper.proc.returncode}:\n{sweeper.tail()}")
            fault.tick()
            try:
                line = lines.get(timeout=0.25)
            except queue.Empty:
                continue
            if line is None:
                return 0
            cmd = line.strip()
            if cmd == "fabric-fault: inject":
                fault.inject()
            elif cmd == "fabric-fault: clear":
                fault.clear()
            elif args.echo:
                sys.stdout.write(line)
                sys.stdout.flush()
    finally:
        if sweeper:
            sweeper.stop()
        if sim:
            sim.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description="A simulated fat tree swept by one agent for a collector.")
    ap.add_argument("--check", action="store_true", help="only check the test bed's tools")
    ap.add_argument("--build-dir")
    ap.add_argument("--collector", help="the collector's base URL")
    ap.add_argument("--token-file", help="the sweeper's token (the collector: `sweep NAME TOKEN`)")
    ap.add_argument("--node-name", default="fabric-sweep")
    ap.add_argument("--interval", type=int, default=4, help="report and sweep interval (s)")
    ap.add_argument("--leaves", type=int, default=4)
    ap.add_argument("--hosts", type=int, default=4)
    ap.add_argument("--spines", type=int, default=2)
    ap.add_argument("--info", help="write the fault cable and the subnet's counts here (JSON)")
    ap.add_argument("--echo", action="store_true", help="copy stdin lines that are no command to stdout")
    ap.add_argument("--wait-collector", type=float, default=600)
    args = ap.parse_args()
    code = simbed.tool_missing()
    if args.check or code is not None:
        return code or 0
    if not args.build_dir or not args.collector:
        ap.error("--build-dir and --collector are needed")
    # The tools run in the subnet's own folder: every path given is taken from here.
    args.build_dir = os.path.abspath(args.build_dir)
    args.token_file = args.token_file and os.path.abspath(args.token_file)
    args.info = args.info and os.path.abspath(args.info)
    if args.leaves < 2 or args.spines < 1 or args.hosts < 1:
        ap.error("the fault cable needs at least 2 leaves, 1 spine and 1 host per leaf")
    def stop(*_):
        # Once: a second signal must not cut the cleanup short. SystemExit runs it (run()'s finally).
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        sys.exit(0)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        return run(args)
    except (RuntimeError, TimeoutError) as e:
        print(f"sim-sweeper: {e}", file=sys.stderr, flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
