// Runs every test file under test/ with node's test runner (TypeScript through tsx's ESM loader:
// test/support/tsx.ts says why not `--import tsx`).
// Two files run at a time (MACHINIST_TEST_CONCURRENCY=<n>: n at a time; 1 for one at a time):
// each starts its own redis-server on a free port of its own, some spawn worker processes, and
// the CI machine has 2 cores. Most of a file's time is spent waiting (timers, leases, a child's
// start), so two at a time take the suite from ~22 to ~8 min there; no test asserts a duration.
// A file ends once its tests have (--test-force-exit): a job of a test that sleeps for a minute
// and was abandoned at a stop (supervisor.stop({ graceMs: 0 }) cannot end user code) kept its
// file's process alive that minute, after every verdict was in.
//
// Without a `redis-server` binary (and no REDIS_URL), the files that need Redis (those that use
// test/support/redis.ts, directly or through test/support/eachStore.ts, or start a redis-server
// themselves) cannot run: this says so in one line
// with how to get it, and runs the others (the MemoryStore suites among them). Under CI they fail.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { spawnSync } from 'node:child_process';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'support' || name === 'fixtures' ? [] : find(p);
    return p.endsWith('.test.ts') ? [p] : [];
  });
}

function onPath(bin) {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      return statSync(join(dir, bin)).isFile();
    } catch {
      return false;
    }
  });
}

const NEEDS_REDIS = /support\/redis|support\/eachStore|startRedis|spawnRedisServer|privateRedis/;
// Arguments name test files or folders (a folder runs every test file under it); a path that
// does not exist is an error, not a run of nothing.
function expand(arg) {
  let stat;
  try {
    stat = statSync(arg);
  } catch {
    console.error(`npm test: no such test file or folder: ${arg}`);
    process.exit(2);
  }
  return stat.isDirectory() ? find(arg).sort() : [arg];
}
const only = process.argv.slice(2);
let files = only.length ? only.flatMap(expand) : find('test').sort();
if (!process.env.REDIS_URL && !onPath('redis-server')) {
  const runnable = files.filter((f) => !NEEDS_REDIS.test(readFileSync(f, 'utf8')));
  const skipped = files.length - runnable.length;
  console.error(
    `npm test: no redis-server on PATH and no REDIS_URL: ${skipped} of ${files.length} test files need Redis and ` +
      `are skipped; install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) ` +
      `or set REDIS_URL=redis://host:port`,
  );
  if (process.env.CI) process.exit(1);
  files = runnable;
}
const concurrency = process.env.MACHINIST_TEST_CONCURRENCY || '2';
if (!/^[1-9]\d*$/.test(concurrency)) {
  console.error(`npm test: MACHINIST_TEST_CONCURRENCY takes a whole number from 1 (got '${concurrency}')`);
  process.exit(2);
}
const r = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx/esm',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-force-exit',
    '--test-reporter=spec',
    ...files,
  ],
  { stdio: 'inherit' },
);
process.exit(r.status ?? 1);
