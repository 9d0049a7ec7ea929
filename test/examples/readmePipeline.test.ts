// The README's whole-pipeline example, exactly as written, run as a user would run it (its own
// process, `machinist` being this package, the Redis URL pointed at a private redis-server): it
// prints its result and exits by itself, which it can only do if it stops what it started.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedis, type TestRedis } from '../support/redis.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The first ```ts block under the README's "## A whole pipeline". */
function readmeExample(): string {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = text.slice(text.indexOf('## A whole pipeline'));
  const m = /```ts\n([\s\S]*?)```/.exec(section);
  assert.ok(m, "the README's whole-pipeline example was found");
  return m[1]!;
}

describe("the README's whole-pipeline example", () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  it('prints its result and exits by itself', async () => {
    const code = readmeExample();
    assert.ok(
      code.includes("'redis://127.0.0.1:6379'"),
      'the example names the Redis URL this test replaces',
    );
    // Inside the repository, so that `xstate` resolves as in a user's project.
    const dir = join(ROOT, 'test-artifacts');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `readme-pipeline-${process.pid}.ts`);
    writeFileSync(
      file,
      code
        .replace("from 'machinist'", `from ${JSON.stringify(join(ROOT, 'src/index.ts'))}`)
        .replace("'redis://127.0.0.1:6379'", JSON.stringify(redis.url)),
    );
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exit = await new Promise<number | string>((res) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          res('still running after 20 s');
        }, 20_000);
        child.on('exit', (c) => {
          clearTimeout(timer);
          res(c ?? 'killed');
        });
      });
      assert.equal(exit, 0, `the example exits by itself with status 0; its output:\n${out}`);
      assert.ok(out.split('\n').includes('hello ADA'), `it prints "hello ADA"; its output:\n${out}`);
    } finally {
      rmSync(file, { force: true });
    }
  });
});
