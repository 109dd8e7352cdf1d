// A throwaway PerilScope server for the browser benchmarks (bench/server.py's twin): a temporary
// SQLite database, migrated (and the reference data loaded, when asked), on a free port.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const CLI = path.join(ROOT, '.venv/bin/perilscope');

async function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** `{ url, tmp, stop }`: the server's address, its temporary folder, and a stop that removes both. */
export async function startServer({ loadData = false, env: extraEnv = {} } = {}) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'perilscope-webbench-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env, DATABASE_URL: `sqlite+aiosqlite:///${tmp}/web.db`, PERILSCOPE_ENV: 'test', PERILSCOPE_LOG_LEVEL: 'WARNING',
    PERILSCOPE_BASE_URL: url, ...extraEnv,
  };
  execFileSync(CLI, ['db', 'upgrade'], { env, cwd: ROOT, stdio: 'ignore' });
  if (loadData) execFileSync(CLI, ['data', 'load'], { env, cwd: ROOT, stdio: 'ignore' });
  const server = spawn(CLI, ['serve', '--host', '127.0.0.1', '--port', String(port)], { env, cwd: ROOT, stdio: 'ignore' });
  for (let i = 0; i < 480; i += 1) {
    try { if ((await fetch(`${url}/ready`)).ok) break; } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, tmp, stop: () => { server.kill(); rmSync(tmp, { recursive: true, force: true }); } };
}
