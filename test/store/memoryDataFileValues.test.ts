// MemoryStore's data file keeps what a job holds exactly (src/store/valueCodec.ts): a job
// parked with a Date, a Map and a Set in its context, and a Date in its input, resumes in a new
// store opened on the file with them as they were, and takes an event carrying a Date.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect, isDeepStrictEqual } from 'node:util';
import { pino } from 'pino';
import { assign, setup } from 'xstate';
import { Client, Supervisor, definePipeline } from '../../src/index.js';
import { MemoryStore } from '../../src/store/memory/MemoryStore.js';
import { eventually } from '../support/redis.js';

const started = new Date(Date.UTC(2026, 0, 1));
const stamped = new Date(Date.UTC(2026, 0, 11));

const pipeline = () =>
  definePipeline({
    name: 'stamped',
    machine: setup({
      types: {
        input: {} as { startedAt: Date },
        context: {} as { startedAt: Date; seen: Map<string, Set<number>>; at: Date | null },
      },
    }).createMachine({
      initial: 'waiting',
      context: ({ input }) => ({
        startedAt: input.startedAt,
        seen: new Map([['k', new Set([1, 2])]]),
        at: null,
      }),
      states: {
        waiting: {
          on: {
            STAMP: {
              target: 'end',
              actions: assign({ at: ({ event }) => (event as unknown as { at: Date }).at }),
            },
          },
        },
        end: { type: 'final' },
      },
      output: ({ context }) => ({
        days: (context.at!.getTime() - context.startedAt.getTime()) / 86_400_000,
        seen: context.seen,
        at: context.at,
      }),
    }),
  });

describe('MemoryStore data file and the values a job holds', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'f-memvalues-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('resumes a parked job from the file with its Date, Map and Set as they were', async () => {
    const file = join(dir, 'jobs.json');
    const logger = pino({ level: 'silent' });
    const first = new MemoryStore({ dataFile: file });
    const sup1 = new Supervisor({ store: first, jobs: [pipeline()], logger });
    await sup1.start();
    const id = await new Client({ store: first, jobs: [pipeline()] }).enqueue('stamped', {
      startedAt: started,
    });
    await eventually(async () => (await first.getJob(id))?.status === 'waiting');
    await sup1.stop();
    await first.close();

    const second = new MemoryStore({ dataFile: file });
    const client = new Client({ store: second, jobs: [pipeline()] });
    const parked = await client.get(id);
    assert.ok(
      isDeepStrictEqual(parked!.context, {
        startedAt: started,
        seen: new Map([['k', new Set([1, 2])]]),
        at: null,
      }),
      inspect(parked!.context),
    );
    const sup2 = new Supervisor({ store: second, jobs: [pipeline()], logger });
    await sup2.start();
    try {
      await client.send(id, { type: 'STAMP', at: stamped });
      const done = await client.waitForResult(id, { timeoutMs: 5000 });
      assert.equal(done.status, 'done', JSON.stringify(done.error));
      assert.ok(
        isDeepStrictEqual(done.output, { days: 10, seen: new Map([['k', new Set([1, 2])]]), at: stamped }),
        inspect(done.output),
      );
    } finally {
      await sup2.stop();
      await second.close();
    }
  });
});
