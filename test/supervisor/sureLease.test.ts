// SURE LEASE (ActiveJob.leaseReady): no work of a job's own code starts once its run's lease may
// have passed, unless a heartbeat sent since has found it still the run's. Here a worker's
// heartbeats fail (cut off from Redis) while a step of 3 leases runs: its lease passes, the other
// worker's reaper requeues the job, and the other worker runs it to its end. When the cut-off
// worker's step ends, the next step MUST NOT start there (it did: the pipeline's next step
// started at once after the step before, whatever had become of the lease).

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { Client, Supervisor, defineJob, definePipeline, step } from '../../src/index.js';
import type { AnyDefinition } from '../../src/index.js';
import type { Store } from '../../src/store/types.js';
import { describeOnEachStore } from '../support/eachStore.js';

const LEASE_MS = 600;
const SETTINGS = {
  concurrency: 1,
  leaseMs: LEASE_MS,
  heartbeatMs: 150,
  reaperIntervalMs: 100,
  idleWaitMs: 100,
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `store` whose heartbeats fail as a refused connection's while `cut()` says so. */
function cutOff(store: Store, cut: () => boolean): Store {
  const partial: Store = Object.create(store) as Store;
  partial.heartbeat = (queue, leases, leaseMs) =>
    cut()
      ? Promise.reject(
          Object.assign(new Error('connect ECONNREFUSED'), { syscall: 'connect', code: 'ECONNREFUSED' }),
        )
      : store.heartbeat(queue, leases, leaseMs);
  return partial;
}

/**
 * The job of each case, for one worker (`who`): its first part takes 3 leases on the cut-off
 * worker, none elsewhere; every part's start is recorded as `who:part`.
 */
type Parts = (who: string, runs: string[], firstEnded: () => void) => AnyDefinition;

function pipeline(compile: boolean): Parts {
  return (who, runs, firstEnded) => {
    const part = (name: string) =>
      step(async () => {
        runs.push(`${who}:${name}`);
        if (name === 'one' && who === 'cut') {
          await sleep(3 * LEASE_MS);
          firstEnded();
        }
        return name;
      });
    return definePipeline({
      name: 'twoSteps',
      compile,
      machine: setup({ actors: { one: part('one'), two: part('two') } }).createMachine({
        initial: 'one',
        states: {
          one: { invoke: { id: 'one', src: 'one', onDone: 'two' } },
          two: { invoke: { id: 'two', src: 'two', onDone: 'end' } },
          end: { type: 'final' },
        },
      }),
    });
  };
}

const loadThenWork: Parts = (who, runs, firstEnded) =>
  defineJob({
    name: 'twoSteps',
    load: async () => {
      runs.push(`${who}:one`);
      if (who === 'cut') {
        await sleep(3 * LEASE_MS);
        firstEnded();
      }
      return 1;
    },
    work: async () => {
      runs.push(`${who}:two`);
      return 2;
    },
  });

const CASES: [string, Parts][] = [
  ['a compiled pipeline', pipeline(true)],
  ['an XState pipeline', pipeline(false)],
  ['a job with a load phase', loadThenWork],
];

describeOnEachStore('a worker whose lease passed while its code ran', (world) => {
  for (const [name, parts] of CASES) {
    it(`starts no next part of ${name} there: the job runs on the worker that took it over`, async () => {
      const h = world();
      const { store } = h;
      const runs: string[] = [];
      let cut = false;
      let firstEnded!: () => void;
      const ended = new Promise<void>((r) => (firstEnded = r));
      const noop = () => {};
      const cutWorker = new Supervisor({
        store: cutOff(store, () => cut),
        jobs: [parts('cut', runs, firstEnded)],
        ...SETTINGS,
      });
      const other = new Supervisor({ store, jobs: [parts('other', runs, noop)], ...SETTINGS });
      const client = new Client({ store, jobs: [parts('client', runs, noop)] });
      try {
        await cutWorker.start();
        const id = await client.enqueue('twoSteps', {});
        while (!runs.includes('cut:one')) await sleep(5);
        cut = true;
        await other.start();
        const done = await client.waitForResult(id, { timeoutMs: 10_000 });
        assert.equal(done.status, 'done');
        await ended;
        // A next part that starts without a sure lease starts at once; one that waits for a
        // heartbeat waits while the worker is cut off, then learns its lease is lost.
        await sleep(100);
        cut = false;
        await sleep(LEASE_MS);
        assert.deepEqual(runs, ['cut:one', 'other:one', 'other:two']);
      } finally {
        await Promise.all([cutWorker.stop(), other.stop()]);
        client.close();
        await h.close();
      }
    });
  }
});
