// Redis only: the library process is a child process, which cannot share a MemoryStore.
// `new Supervisor({ isolateStrayErrors: true })`, as a library user runs it: several supervisors
// in one process share one pair of process handlers, installed at the first start and removed
// at the last stop; a job's stray error fails that job on whichever supervisor runs it; an
// error of no job is logged and the process goes on, unless Node says its state is broken.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { pino } from 'pino';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { MemoryHarness } from '../support/memoryHarness.js';
import { fixtureEnv, killFixture, spawnFixture, type Fixture } from '../support/spawnFixture.js';
import { steady, timerThrow } from '../fixtures/strayJobs.js';

const exitOf = async (f: Fixture): Promise<string> => {
  const { child } = f;
  // 'close', not 'exit': every line it printed has been read by then.
  if (child.exitCode === null && child.signalCode === null) await once(child, 'close');
  return child.signalCode ? `signal ${child.signalCode}` : `code ${child.exitCode}`;
};

describe('Supervisor({ isolateStrayErrors }) in a library process', () => {
  let redis: TestRedis;
  let h: Harness | undefined;
  let fixture: Fixture | undefined;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    killFixture(fixture?.child);
    await h?.close();
  });

  it('shares one pair of handlers between supervisors, installed at the first start and removed at the last stop', async () => {
    const m = new MemoryHarness();
    const count = () =>
      process.listenerCount('uncaughtException') + process.listenerCount('unhandledRejection');
    const base = count();
    const logger = pino({ level: 'silent' });
    try {
      const a = await m.started({ jobs: [steady], queue: 'a', logger, isolateStrayErrors: true });
      assert.equal(count(), base + 2);
      const b = await m.started({ jobs: [steady], queue: 'b', logger, isolateStrayErrors: true });
      const off = await m.started({ jobs: [steady], queue: 'c', logger });
      assert.equal(count(), base + 2, 'the second supervisor adds none; one without the option none');
      await a.stop();
      assert.equal(count(), base + 2, 'still one supervisor listening');
      await off.stop();
      await b.stop();
      assert.equal(count(), base, 'the last stop removes them');
      await b.start();
      assert.equal(count(), base + 2, 'a restart installs them again');
    } finally {
      await m.close();
    }
    assert.equal(count(), base);
  });

  it(
    "fails a stray error's job on either supervisor while the other jobs end done; logs an error of no job and goes on; after the last stop Node's default applies again",
    { timeout: 60_000 },
    async () => {
      h = new Harness(redis);
      fixture = spawnFixture('strayLibraryWorker.ts', fixtureEnv(redis, h.prefix));
      await fixture.ready;
      await fixture.printed('HANDLERS 0 2');
      const client = h.client({ jobs: [steady, timerThrow] });
      const jobs = [
        { machine: 'steady', input: 1, queue: 'a' },
        { machine: 'timerThrow', queue: 'b' },
        { machine: 'steady', input: 2, queue: 'b' },
        { machine: 'timerThrow', queue: 'a' },
      ];
      const ids = await Promise.all(jobs.map((j) => client.enqueue(j.machine, j.input, { queue: j.queue })));
      await Promise.allSettled(
        ids.map((id, i) => client.waitForResult(id, { queue: jobs[i]!.queue, timeoutMs: 15_000 })),
      );
      for (const [i, id] of ids.entries()) {
        const rec = await client.get(id, { queue: jobs[i]!.queue });
        if (jobs[i]!.machine === 'steady') assert.equal(rec?.status, 'done', `steady on ${jobs[i]!.queue}`);
        else {
          assert.equal(rec?.status, 'failed', `timerThrow on ${jobs[i]!.queue}`);
          assert.equal(rec?.error?.message, 'thrown from a timer');
          assert.equal(rec?.attempts, 2);
        }
      }
      assert.equal(fixture.child.exitCode, null, 'the process is alive');

      fixture.child.kill('SIGUSR2');
      await fixture.printed('LOG stray error outside any job; the process goes on (outside any job)');
      const alive = await client.enqueue('steady', 3, { queue: 'a' });
      assert.equal((await client.waitForResult(alive, { queue: 'a', timeoutMs: 15_000 })).output, 6);

      fixture.child.kill('SIGTERM');
      await fixture.printed('STOPPED 0');
      assert.equal(await exitOf(fixture), 'code 1', 'a throw after the last stop ends the process');
    },
  );

  it(
    'exits with code 1 on an error of no job that says the process state is broken',
    { timeout: 30_000 },
    async () => {
      h = new Harness(redis);
      fixture = spawnFixture('strayLibraryWorker.ts', fixtureEnv(redis, h.prefix));
      await fixture.ready;
      fixture.child.kill('SIGHUP');
      assert.equal(await exitOf(fixture), 'code 1');
      await fixture.printed('LOG fatal error outside any job (ERR_INTERNAL_ASSERTION): exiting');
    },
  );
});
