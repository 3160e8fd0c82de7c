"""A simulated InfiniBand subnet for tests: ibsim + opensm under the umad shim.

Contract: Sim(netfile, host) starts ibsim (its console on a FIFO held open
read-write, so it never sees EOF) and opensm, each by PID, in a fresh mkdtemp
folder with a unique socket name, and waits (with deadlines) for SUBNET UP.
run() runs a client tool as `host` under the shim, always inside `timeout`.
console() writes ibsim console lines and waits for a marker's echo. stop()
ends opensm then ibsim by their PIDs (SIGTERM, then SIGKILL after a grace).
fixture_root(dir) writes the sysfs tree an agent on a simulated host reads.
Missing tools: tool_missing() prints the package to install and returns the
skip code (or fails under CI=true), like tests/tool_missing.sh.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SHIM = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"
SKIP = 77
TOOLS = {"ibsim": "ibsim-utils", "opensm": "opensm", "ibnetdiscover": "infiniband-diags",
         "perfquery": "infiniband-diags", "ibqueryerrors": "infiniband-diags"}


class Check:
    """Prints each check as "ok" or "FAIL" and counts the failures."""

    def __init__(self):
        self.failed = 0

    def __call__(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what, flush=True)
        self.failed += 0 if ok else 1
        return ok


def tool_missing():
    """Returns None when every tool is there, else the exit code to use."""
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if not os.path.exists(SHIM):
        missing.append("libumad2sim.so")
    if not missing:
        return None
    pkgs = sorted({TOOLS.get(t, "libumad2sim0") for t in missing})
    msg = f"fabric test bed needs {', '.join(missing)}: apt-get install {' '.join(pkgs)} (scripts/setup-deps.sh)"
    if os.environ.get("CI") == "true" or os.environ.get("RDMASCOPE_REQUIRE_ALL") == "1":
        print("FAIL: " + msg, file=sys.stderr)
        return 1
    print("SKIP: " + msg, file=sys.stderr)
    return SKIP


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fixture_root(workdir):
    """A sysfs tree under workdir with one ACTIVE IB port on a device named like the shim's CA
    (ibsim has no verbs, and the shim's own sysfs is not the host's)."""
    root = os.path.join(workdir, "sys")
    shutil.copytree(os.path.join(REPO, "tests/fixtures/sys/mlx5_ib"), root, symlinks=True)
    ib = os.path.join(root, "class/infiniband")
    os.rename(os.path.join(ib, "mlx5_0"), os.path.join(ib, "ibsim0"))
    return root


def wait_for(pred, deadline_s, what):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.02)
    raise TimeoutError(f"timed out after {deadline_s} s waiting for {what}")


class Sim:
    def __init__(self, netfile, host, sm=True):
        self.dir = tempfile.mkdtemp(prefix="rdmascope-fabric-")
        self.host = host
        self.sock = f"rdmascope-{os.getpid()}-{os.path.basename(self.dir)}"
        self.marker = 0
        self.sim = self.sm = None
        fifo = os.path.join(self.dir, "console")
        os.mkfifo(fifo)
        self.console_fd = os.open(fifo, os.O_RDWR)
        self.sim_log = os.path.join(self.dir, "ibsim.log")
        env = dict(os.environ, IBSIM_SOCKNAME=self.sock)
        with open(self.sim_log, "w") as log:
            self.sim = subprocess.Popen(["ibsim", "-s", netfile], stdin=self.console_fd, stdout=log,
                                        stderr=subprocess.STDOUT, env=env, cwd=self.dir)
        try:
            wait_for(lambda: "sim>" in self._log(), 30, "ibsim to read " + netfile)
            if sm:
                self._start_sm()
        except Exception:
            self.stop()
            raise

    def _log(self):
        with open(self.sim_log, errors="replace") as f:
            return f.read()

    def env(self, host=None):
        return dict(os.environ, LD_PRELOAD=SHIM, SIM_HOST=host or self.host, IBSIM_SOCKNAME=self.sock)

    def _start_sm(self):
        osm = os.path.join(self.dir, "osm")
        os.mkdir(osm)
        self.sm_log = os.path.join(osm, "opensm.log")
        env = dict(self.env(), OSM_CACHE_DIR=osm, OSM_TMP_DIR=osm)
        self.sm = subprocess.Popen(["opensm", "-d2", "-f", self.sm_log], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=env, cwd=self.dir)

        def up():
            if self.sm.poll() is not None:
                raise RuntimeError(f"opensm exited with {self.sm.returncode}; log {self.sm_log}")
            try:
                with open(self.sm_log, errors="replace") as f:
                    return "SUBNET UP" in f.read()
            except FileNotFoundError:
                return False
        wait_for(up, 60, "opensm: SUBNET UP")

    def run(self, argv, timeout_s=60, host=None, check=False):
        """Runs a client tool under the shim; returns CompletedProcess (text)."""
        cp = subprocess.run(["timeout", "-k", "2", str(timeout_s)] + list(argv), capture_output=True, text=True,
                            env=self.env(host), cwd=self.dir)
        if check and cp.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {cp.returncode}: {cp.stderr.strip()[-2000:]}")
        return cp

    def console(self, *lines):
        """Writes lines to the ibsim console; returns once ibsim has read them."""
        self.marker += 1
        mark = f"#rdmascope-mark-{self.marker}"
        os.write(self.console_fd, ("\n".join(lines) + "\n" + mark + "\n").encode())
        wait_for(lambda: mark in self._log(), 10, "ibsim console to take " + "; ".join(lines))

    def stop(self):
        for p in (self.sm, self.sim):
            if p is None or p.poll() is not None:
                continue
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(3)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)
        try:
            os.close(self.console_fd)
        except OSError:
            pass
        if os.environ.get("RDMASCOPE_KEEP_SIM_DIR") != "1":
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
