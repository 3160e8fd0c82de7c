// Starts a private rdmascope-collector for a test and stops it again.
//
// Contract: startCollector() resolves once GET /healthz answers 200 (deadline
// 15 s), with {url, post(report), get(path), stop()}. The collector listens on
// 127.0.0.1 on a port free at start (retried on a bind race), uses a fresh
// database in a temp dir, --no-auth, and serves web/ as the dashboard. stop()
// sends SIGTERM, waits for exit (5 s, then SIGKILL) and removes the temp dir.
// The binary: $RDMASCOPE_COLLECTOR, else $RDMASCOPE_BUILD_DIR (default build/)
// /bin/rdmascope-collector. It runs under a small shell guard holding a pipe
// from this process: when this process dies (a test runner's timeout kill), the
// pipe closes and the guard sends the collector SIGTERM, so nothing is left.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const BUILD = process.env.RDMASCOPE_BUILD_DIR || join(REPO, 'build');

function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.on('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

export async function waitFor(what, fn, timeoutMs = 10000, stepMs = 50) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ': ' + last.message : ''}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

async function startOnce(bin, extraArgs) {
  const dir = mkdtempSync(join(tmpdir(), 'rdmascope-web-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = ['--listen', `127.0.0.1:${port}`, '--db', join(dir, 'db.sqlite'), '--no-auth',
    '--web-dir', join(REPO, 'web'), '--db-synchronous', 'normal', ...extraArgs];
  // Guard: collector in the background; a reader of stdin kills it on EOF; the
  // shell exits with the collector. Own process group, for the SIGKILL fallback.
  // (An asynchronous list's stdin is /dev/null, so the reader gets the pipe as fd 3.)
  const guard = 'exec 3<&0; "$0" "$@" & pid=$!; (read -r _ <&3; kill -TERM $pid 2>/dev/null) & exec 3<&-; wait $pid';
  const child = spawn('/bin/sh', ['-c', guard, bin, ...args], { stdio: ['pipe', 'ignore', 'pipe'], detached: true });
  let log = '';
  child.stderr.on('data', (d) => { log += d; });
  const exited = new Promise((r) => child.on('exit', (code, sig) => r({ code, sig })));
  let done = false;
  exited.then(() => { done = true; });

  async function stop() {
    if (!done) {
      child.stdin.end();  // the guard sends SIGTERM
      const t = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, 5000);
      await exited;
      clearTimeout(t);
    }
    rmSync(dir, { recursive: true, force: true });
  }

  try {
    const died = exited.then(({ code, sig }) => { throw new Error(`collector exited (${sig || code}) at start: ${log}`); });
    died.catch(() => {});  // only a failure while starting matters
    await Promise.race([waitFor('collector /healthz', async () => !done && (await fetch(`${url}/healthz`)).ok, 15000), died]);
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    url, dir, log: () => log, stop,
    async post(report) {
      const r = await fetch(`${url}/api/v1/reports`, {
        // Date: the send time, as the agent sends it, so history generated in the past is
        // stored as a replayed spool would be, not as clock skew.
        method: 'POST', headers: { 'Content-Type': 'application/json', Date: new Date().toUTCString() },
        body: JSON.stringify(report),
      });
      const body = await r.text();
      if (r.status !== 200) throw new Error(`POST report ${report.report_id}: ${r.status} ${body}`);
      return JSON.parse(body);
    },
    async get(path) {
      const r = await fetch(`${url}${path}`);
      if (!r.ok) throw new Error(`GET ${path}: ${r.status}`);
      return r.json();
    },
  };
}

export async function startCollector(extraArgs = []) {
  const bin = process.env.RDMASCOPE_COLLECTOR || join(BUILD, 'bin', 'rdmascope-collector');
  if (!existsSync(bin)) throw new Error(`${bin} not built (cmake --build build --target rdmascope-collector)`);
  let lastErr;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(bin, extraArgs);
    } catch (e) {
      lastErr = e;  // most likely the port was taken between probe and bind
    }
  }
  throw lastErr;
}
