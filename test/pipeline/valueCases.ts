// Pipeline cases about the values a job holds (src/store/valueCodec.ts), run by the behaviour
// suite on both runtimes and both stores: a value plain JSON cannot carry (Date, Map, Set, BigInt,
// RegExp, undefined in an array, NaN, Infinity) MUST come back exactly after a checkpoint is
// restored (a park, a worker restart), as an in-memory XState run would hold it; a class instance
// MUST be refused at the first checkpoint, naming its path, with no retry.

import assert from 'node:assert/strict';
import { isDeepStrictEqual, inspect } from 'node:util';
import {
  assign,
  createActor,
  setup,
  toPromise,
  waitFor,
  type AnyEventObject,
  type AnyStateMachine,
} from 'xstate';
import { defineJob, fanOut, step } from '../../src/index.js';
import { untilAborted } from '../support/harness.js';
import { eventually } from '../support/redis.js';
import { Probe, type Case } from './behaviourCases.js';

/** Every kind of value plain JSON would change, as a step returns it. */
const rich = () => ({
  at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)),
  tags: new Set(['a', 'b']),
  counts: new Map<string, unknown>([
    ['x', 1],
    ['when', new Date(0)],
  ]),
  big: 12345678901234567890n,
  holes: [1, undefined, 3],
  nan: NaN,
  inf: -Infinity,
  re: /a+b/gi,
  plain: { n: 1, s: 'x' },
});

/** What the machines' context starts from: a Date, a Map holding a Set, a Set. */
const started = () => ({
  startedAt: new Date(Date.UTC(2026, 0, 1)),
  seen: new Map([['k', new Set([1, 2])]]),
  tags: new Set(['t']),
});

const STAMPED_AT = new Date(Date.UTC(2026, 5, 7, 8, 9, 10));

/** A step that notes whether its input is exactly `expected` (deep, with types). */
const checking = (probe: Probe, expected: () => unknown) =>
  step<unknown, unknown>(async ({ input }) => {
    const same = isDeepStrictEqual(input, expected());
    probe.calls.push(same ? 'check: exact' : `check: changed ${inspect(input, { depth: 5 })}`);
    return input;
  });

class Money {
  constructor(readonly cents: number) {}
}

/** Steps that stamp every kind of value into the context, hold (a restart comes here), and check it. */
function richMachine(probe: Probe) {
  return setup({
    actors: {
      stamp: step(async () => rich()),
      hold: step(async ({ signal }) => Promise.race([probe.release.promise, untilAborted(signal)])),
      check: checking(probe, () => ({ from: new Date(Date.UTC(2025, 11, 31)), v: rich() })),
    },
  }).createMachine({
    initial: 'stamping',
    context: ({ input }: { input: { from: Date } }) => ({ from: input.from, v: null }),
    states: {
      stamping: {
        invoke: {
          id: 'stamp',
          src: 'stamp',
          input: probe.mapper(() => undefined),
          onDone: { target: 'holding', actions: assign({ v: ({ event }) => event.output }) },
        },
      },
      holding: { invoke: { id: 'hold', src: 'hold', onDone: 'checking' } },
      checking: {
        invoke: {
          id: 'check',
          src: 'check',
          input: ({ context }: { context: unknown }) => context,
          onDone: 'end',
        },
      },
      end: { type: 'final' },
    },
    output: ({ context }) => context.v,
  });
}

/** Parks waiting for STAMP (a Date in the event), then checks the context. */
function parkingMachine(probe: Probe) {
  return setup({
    actors: {
      check: checking(probe, () => ({ ...started(), stampedAt: STAMPED_AT })),
    },
  }).createMachine({
    initial: 'waiting',
    context: () => ({ ...started(), stampedAt: null as Date | null }),
    states: {
      waiting: {
        on: {
          STAMP: {
            target: 'checking',
            actions: assign({ stampedAt: ({ event }) => (event as unknown as { at: Date }).at }),
          },
        },
      },
      checking: {
        invoke: {
          id: 'check',
          src: 'check',
          input: probe.mapper(({ context }: { context: unknown }) => context),
          onDone: { target: 'end' },
        },
      },
      end: { type: 'final' },
    },
    output: ({ context }) => ({
      days: Math.round((context.stampedAt!.getTime() - context.startedAt.getTime()) / 86_400_000),
      seen: context.seen,
      tags: context.tags,
    }),
  });
}

/** A probe whose release is open: for a run that waits on nothing. */
function opened(): Probe {
  const p = new Probe();
  p.release.open();
  return p;
}

/** The output plain XState gives for the machine, in memory, sent `events` in turn. */
async function plainXState(
  machine: AnyStateMachine,
  input: unknown,
  events: AnyEventObject[],
): Promise<unknown> {
  const actor = createActor(machine, { input });
  const done = toPromise(actor);
  actor.start();
  for (const event of events) {
    await waitFor(actor, (snap) => snap.can(event));
    actor.send(event);
  }
  return done;
}

export const valueCases: Case[] = [
  {
    name: 'a Date, Map, Set, BigInt, RegExp, NaN and undefined in an array in context come back exactly after a worker restart',
    compiles: true,
    input: { from: new Date(Date.UTC(2025, 11, 31)) },
    machine: (probe) => richMachine(probe),
    drive: async ({ id, client, probe, restart }) => {
      await eventually(async () => (await client.get(id))?.state === 'holding');
      const held = await client.get(id);
      assert.ok(isDeepStrictEqual(held!.context, { from: new Date(Date.UTC(2025, 11, 31)), v: rich() }));
      await restart(); // the step in flight is re-run by a fresh worker, from the checkpoint
      probe.release.open();
      const done = await client.waitForResult(id, { timeoutMs: 8000 });
      assert.equal(done.status, 'done', JSON.stringify(done.error));
      assert.ok(isDeepStrictEqual(done.output, rich()), inspect(done.output));
      const plain = await plainXState(richMachine(opened()), { from: new Date(Date.UTC(2025, 11, 31)) }, []);
      assert.ok(isDeepStrictEqual(done.output, plain), 'the output plain XState gives');
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.calls, ['check: exact']);
    },
  },
  {
    name: 'a Date in a sent event and a Date, Map and Set in context come back exactly after the job parks and every worker restarts',
    compiles: true,
    machine: (probe) => parkingMachine(probe),
    drive: async ({ id, client, restart }) => {
      await eventually(async () => (await client.get(id))?.status === 'waiting');
      await restart();
      await client.send(id, { type: 'STAMP', at: STAMPED_AT });
      const done = await client.waitForResult(id, { timeoutMs: 8000 });
      assert.equal(done.status, 'done', JSON.stringify(done.error));
      const { seen, tags } = started();
      assert.ok(isDeepStrictEqual(done.output, { days: 157, seen, tags }), inspect(done.output));
      const plain = await plainXState(parkingMachine(opened()), undefined, [
        { type: 'STAMP', at: STAMPED_AT },
      ]);
      assert.ok(isDeepStrictEqual(done.output, plain), 'the output plain XState gives');
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.calls, ['check: exact']);
    },
  },
  {
    name: 'a fan-out gets its children’s outputs exactly: a Date and a Map, from a child with a Date in its input',
    compiles: false,
    jobs: [
      defineJob({
        name: 'stampIt',
        work: async ({ input }: { input: { at: Date } }) => ({
          at: new Date(input.at.getTime() + 1000),
          seen: new Map([['n', input.at]]),
        }),
      }),
    ],
    machine: () =>
      setup({ actors: { fanOut } }).createMachine({
        initial: 'fan',
        context: { out: [] as unknown[] },
        states: {
          fan: {
            invoke: {
              id: 'fan',
              src: 'fanOut',
              input: { jobs: [0, 1].map((n) => ({ machine: 'stampIt', input: { at: new Date(n) } })) },
              onDone: { target: 'end', actions: assign({ out: ({ event }) => event.output }) },
            },
          },
          end: { type: 'final' },
        },
        output: ({ context }) => context.out,
      }),
    drive: async ({ id, client }) => {
      const done = await client.waitForResult(id, { timeoutMs: 8000 });
      const want = [0, 1].map((n) => ({ at: new Date(n + 1000), seen: new Map([['n', new Date(n)]]) }));
      assert.ok(isDeepStrictEqual(done.output, want), inspect(done.output));
    },
    expect: (r) => assert.equal(r.record.status, 'done'),
  },
  {
    name: 'a class instance in context is refused at the first checkpoint, naming its path, with no retry',
    compiles: true,
    retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 20 } },
    machine: (probe) =>
      setup({
        actors: { hold: step(async ({ signal }) => untilAborted(signal)) },
      }).createMachine({
        initial: 'a',
        context: () => ({ order: { price: new Money(500) } }),
        states: {
          a: { invoke: { id: 'hold', src: 'hold', input: probe.mapper(() => undefined), onDone: 'end' } },
          end: { type: 'final' },
        },
      }),
    expect: (r) => {
      assert.equal(r.record.status, 'failed');
      assert.equal(r.record.attempts, 1, 'not retried');
      assert.equal(r.record.error?.code, 'UNSERIALIZABLE_SNAPSHOT');
      assert.match(r.record.error.message, /context\.order\.price/);
      assert.match(r.record.error.message, /Money/);
      assert.ok(r.deadLettered);
    },
  },
];
