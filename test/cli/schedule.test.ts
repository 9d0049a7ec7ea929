// `machinist schedule set` and `machinist schedules` as users run them (child processes against a
// private redis-server), and a bad cron's exit. Three runs only: each starts a Node process
// (pause, trigger, rm are the same backend calls, tested through the Client and HTTP).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RedisStore } from '../../src/index.js';
import { startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { TSX } from '../support/tsx.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('machinist schedule', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  it('sets and lists a schedule, and refuses a bad cron with a usage exit', async () => {
    const prefix = uniquePrefix();
    const store = new RedisStore({ url: redis.url, prefix });
    await store.registerMachines([{ name: 'report', versions: [1], hasLoad: false }]);
    await store.close();
    const cli = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          [...TSX, 'src/cli/main.ts', '--redis', redis.url, '--prefix', prefix, ...args],
          { cwd: ROOT },
          (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const set = await cli(
      'schedule',
      'set',
      'nightly',
      '-m',
      'report',
      '--cron',
      '30 2 * * *',
      '--tz',
      'Europe/Rome',
      '--overlap',
      'allowAll',
      '--pause-on-failure',
    );
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /nightly: At 02:30.*Europe\/Rome/);
    assert.match(set.stdout, /overlap allowAll, pauses on failure/);
    const list = await cli('schedules');
    assert.match(list.stdout, /nightly\s+At 02:30/);
    const bad = await cli('schedule', 'set', 'x', '-m', 'report', '--cron', '99 * * * *');
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /INVALID_SCHEDULE/);
  });
});
