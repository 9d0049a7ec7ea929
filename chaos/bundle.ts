// Bundles the worker fixture into one JavaScript file (chaos/.build/worker.mjs) with esbuild
// (which tsx brings): a bundled worker starts in ~0.13 s of CPU against ~0.3 s through tsx, and
// T1 starts a hundred of them on a 2-core machine. Dependencies stay external (node_modules).
// The store reads its Lua scripts from `lua/` beside its module: a copy goes beside the bundle,
// made afresh on every run.

import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const WORKER_BUNDLE = join(HERE, '.build', 'worker.mjs');

export function bundleWorker(): string {
  const esbuild = join(HERE, '..', 'node_modules', '.bin', 'esbuild');
  // prettier-ignore
  const r = spawnSync(esbuild, [
    join(HERE, 'worker.ts'), '--bundle', '--platform=node', '--format=esm', '--packages=external',
    `--outfile=${WORKER_BUNDLE}`, '--log-level=warning',
  ], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('could not bundle chaos/worker.ts');
  const lua = join(HERE, '.build', 'lua');
  rmSync(lua, { recursive: true, force: true });
  cpSync(join(HERE, '..', 'src', 'store', 'redis', 'lua'), lua, { recursive: true });
  return WORKER_BUNDLE;
}
