// Runs every test file under test/ with node's test runner (TypeScript through tsx).
// Files run one at a time: each starts its own redis-server and some spawn worker processes,
// and the CI machine has 2 cores.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'support' || name === 'fixtures' ? [] : find(p);
    return p.endsWith('.test.ts') ? [p] : [];
  });
}
const only = process.argv.slice(2);
const files = only.length ? only : find('test').sort();
const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files],
  { stdio: 'inherit' },
);
process.exit(r.status ?? 1);
