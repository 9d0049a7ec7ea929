// examples/typedApp.ts is a user's program (typed client, a pipeline with a durable timer, a
// redeploy whose migrate renames a state): it typechecks with the repo (strict), and here it
// runs as its own process against a private redis-server and must end with every check ok.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { startRedis, type TestRedis } from '../support/redis.js';

describe('examples/typedApp.ts', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  it('runs to the end with every check ok: typed results, a timer, a migrated redeploy', async () => {
    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'examples/typedApp.ts'],
        { env: { ...process.env, REDIS_URL: redis.url }, timeout: 60_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    assert.equal(code, 0, `${stdout}\n${stderr}`);
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 5, stdout);
    for (const line of lines) assert.match(line, /^ok - /);
    assert.ok(stdout.includes('ok - reminder done after the redeploy'), stdout);
  });
});
