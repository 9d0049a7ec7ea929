// Redis only: the store's clock (Redis TIME) must not step with Date.now; a MemoryStore reads
// Date.now.
// Attempt timeouts and progress coalescing are durations: they follow the worker's monotonic
// clock, never the wall clock, which NTP may step. The supervisor runs in this process, so
// replacing Date.now here steps the wall clock under it.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { defineJob, definePipeline, step } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness, gate, untilAborted } from '../support/harness.js';

const HOUR = 3_600_000;
const realNow = Date.now;

/** A pipeline whose one step runs `fn`; compiled or on XState actors. */
function onePipeline(
  name: string,
  compile: boolean,
  timeoutMs: number,
  fn: (signal: AbortSignal) => Promise<unknown>,
) {
  return definePipeline({
    name,
    compile,
    timeoutMs,
    retry: { maxAttempts: 1 },
    machine: setup({ actors: { work: step(({ signal }) => fn(signal)) } }).createMachine({
      initial: 'work',
      states: {
        work: { invoke: { id: 'work', src: 'work', onDone: 'end' } },
        end: { type: 'final' },
      },
      output: () => 'ok',
    }),
  });
}

describe('timeouts and the wall clock', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    Date.now = realNow;
    await h.close();
  });

  it('times out no running job when the wall clock steps an hour forward', async () => {
    h = new Harness(redis);
    const release = gate();
    let started = 0;
    const held = async () => {
      started++;
      await release.promise;
      return 'ok';
    };
    const jobs = [
      defineJob({ name: 'held', timeoutMs: 5000, retry: { maxAttempts: 1 }, work: held }),
      onePipeline('heldCompiled', true, 5000, held),
      onePipeline('heldXstate', false, 5000, held),
    ];
    assert.notEqual((jobs[1] as { compiled: unknown }).compiled, null);
    const client = h.client({ jobs });
    await h.started({ jobs });
    const ids = await client.enqueueMany(jobs.map((j) => ({ machine: j.name })));
    while (started < 3) await new Promise((r) => setTimeout(r, 10));

    Date.now = () => realNow() + HOUR;
    await new Promise((r) => setTimeout(r, 300)); // many deadline sweeps (every 20 ms) go by
    release.open();
    const records = await Promise.all(ids.map((id) => client.waitForResult(id, { timeoutMs: 5000 })));
    for (const rec of records) {
      assert.equal(rec.status, 'done', `${rec.machine}: ${rec.error?.message}`);
      assert.equal(rec.output, 'ok');
    }
  });

  it('still times out a job at its timeoutMs, and coalesces its progress on time, when the wall clock steps an hour back', async () => {
    h = new Harness(redis);
    const stepped = gate();
    let started = 0;
    const hang = async (signal: AbortSignal) => {
      started++;
      return untilAborted(signal);
    };
    const jobs = [
      defineJob({
        name: 'hang',
        timeoutMs: 1500,
        retry: { maxAttempts: 1 },
        work: async ({ signal, progress }) => {
          progress('first');
          started++;
          await stepped.promise;
          progress('second'); // coalesced: due 200 ms after the first, on the worker's clock
          return untilAborted(signal);
        },
      }),
      onePipeline('hangCompiled', true, 1500, hang),
    ];
    const client = h.client({ jobs });
    await h.started({ jobs });
    const ids = await client.enqueueMany(jobs.map((j) => ({ machine: j.name })));
    while (started < 2) await new Promise((r) => setTimeout(r, 10));

    Date.now = () => realNow() - HOUR;
    const t0 = performance.now();
    stepped.open();
    const records = await Promise.all(ids.map((id) => client.waitForResult(id, { timeoutMs: 6000 })));
    const took = performance.now() - t0;
    for (const rec of records) {
      assert.equal(rec.status, 'failed', rec.machine);
      assert.equal(rec.error?.code, 'TIMEOUT', rec.machine);
    }
    assert.ok(took < 4000, `timed out ${Math.round(took)} ms after the step (timeout 1500 ms)`);
    assert.equal(records[0]!.progress, 'second', 'the coalesced progress was written before the timeout');
  });

  it('stores a pipeline timer due on Redis time, whatever the wall clock did since it was set', async () => {
    h = new Harness(redis);
    const release = gate();
    const timed = definePipeline({
      name: 'timed',
      compile: false,
      machine: setup({ actors: { work: step(() => release.promise) } }).createMachine({
        initial: 'a',
        states: {
          a: {
            after: { 4000: 'late' },
            initial: 'run',
            states: { run: { invoke: { id: 'work', src: 'work', onDone: 'idle' } }, idle: {} },
          },
          late: { type: 'final' },
        },
        output: () => 'late',
      }),
    });
    const other = defineJob({ name: 'other', work: () => 1 });
    const jobs = [timed, other];
    const client = h.client({ jobs });
    await h.started({ jobs });
    const redisMs = async () => {
      const [sec, usec] = await h.raw.time();
      return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
    };
    const dueAt = async () =>
      ((await client.get(id))?.snapshot as { t?: { dueAt: number }[] } | null)?.t?.[0]?.dueAt;
    const before = await redisMs();
    const id = await client.enqueue('timed', null);
    while ((await dueAt()) === undefined) await new Promise((r) => setTimeout(r, 10));

    // The wall clock steps an hour forward, and commits go by (another job) before the timer is
    // stored again, as the step ends and the job parks on it.
    Date.now = () => realNow() + HOUR;
    await client.waitForResult(await client.enqueue('other', null), { timeoutMs: 5000 });
    release.open();
    let rec = await client.get(id);
    for (let i = 0; i < 200 && rec?.status !== 'waiting'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      rec = await client.get(id);
    }
    assert.equal(rec?.status, 'waiting', 'parked on its timer');
    const due = (await dueAt())!;
    assert.ok(
      due >= before + 3500 && due <= before + 6000,
      `stored due ${due - before} ms after the enqueue (timer 4000 ms)`,
    );
    assert.equal(rec?.runAt, due, 'the wake time is the timer');
    Date.now = realNow;
    const done = await client.waitForResult(id, { timeoutMs: 8000 });
    assert.equal(done.output, 'late');
  });
});
