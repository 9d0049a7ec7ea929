// Bundles the worker fixture into one JavaScript file with esbuild (which tsx brings): a bundled
// worker starts in ~0.13 s of CPU against ~0.3 s through tsx, and T1 starts a hundred of them on
// a 2-core machine. Dependencies stay external (node_modules). The store reads its Lua scripts
// from `lua/` beside its module: a copy goes beside the bundle. Each run bundles into a folder of
// its own (chaos/.build/run-XXXXXX/worker.mjs), removed as it exits: two runs at once from one
// tree each rebuilt the other's `lua/` under its workers (a worker found an include missing and
// died at start).

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** Bundles the worker into a folder of this process's; the bundle's path. */
export function bundleWorker(): string {
  mkdirSync(join(HERE, '.build'), { recursive: true });
  const dir = mkdtempSync(join(HERE, '.build', 'run-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const bundle = join(dir, 'worker.mjs');
  const esbuild = join(HERE, '..', 'node_modules', '.bin', 'esbuild');
  // prettier-ignore
  const r = spawnSync(esbuild, [
    join(HERE, 'worker.ts'), '--bundle', '--platform=node', '--format=esm', '--packages=external',
    `--outfile=${bundle}`, '--log-level=warning',
  ], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('could not bundle chaos/worker.ts');
  cpSync(join(HERE, '..', 'src', 'store', 'redis', 'lua'), join(dir, 'lua'), { recursive: true });
  return bundle;
}
