// Behaviour cases of `on` events beside a step's invoke: an event sent while the step runs is
// offered as XState offers it (guards evaluated as `snapshot.can`, then as the event is taken);
// one without a target assigns in place and the step runs on; one with a target leaves the
// state, the step stopped through its signal as XState stops an invoked actor, its late result
// ignored, and the next state's step run; one whose guard is false is ignored, logged with its
// reason (runCompiledPipeline.ts leave, SUPERSEDED). Each case runs on both runtimes
// (behaviourSuite.ts) and must give the same records, stored snapshots, audit logs and calls.

import assert from 'node:assert/strict';
import { assign, setup } from 'xstate';
import { step } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import type { Case, Probe, Run } from './behaviourCases.js';

/** `a` (a step) -> `b` (step `work`: 1.5 s, or until its signal fires; `on` NOTE (targetless,
 * assigns) and SKIP (guarded by `event.ok`, to `c`)) -> `c` (a step) -> `end`. */
function eventMachine(probe: Probe) {
  return setup({
    types: {
      context: {} as { notes: string[]; via: string },
      events: {} as { type: 'NOTE'; text: string } | { type: 'SKIP'; ok: boolean },
    },
    actors: {
      quick: step(async () => 'q'),
      work: step<string, undefined>(async ({ signal }) => {
        probe.calls.push('work');
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 1500);
          signal.addEventListener('abort', () => {
            probe.calls.push(`work aborted:${(signal.reason as Error).name}`);
            clearTimeout(t);
            resolve();
          });
        });
        return 'worked';
      }),
      next: step<string, string>(async ({ input }) => {
        probe.calls.push(`next:${input}`);
        return input;
      }),
    },
    guards: {
      allowed: ({ event }) => {
        probe.calls.push('guard allowed');
        return (event as { ok?: boolean }).ok === true;
      },
    },
  }).createMachine({
    id: 'ev',
    initial: 'a',
    context: { notes: [], via: '' },
    states: {
      a: { invoke: { id: 'quick', src: 'quick', input: probe.mapper(() => undefined), onDone: 'b' } },
      b: {
        invoke: {
          id: 'work',
          src: 'work',
          onDone: { target: 'c', actions: assign({ via: ({ event }) => event.output }) },
        },
        on: {
          NOTE: {
            actions: assign({
              notes: ({ context, event }) => [...context.notes, (event as { text: string }).text],
            }),
          },
          SKIP: { guard: 'allowed', target: 'c', actions: assign({ via: 'skipped' }) },
        },
      },
      c: { invoke: { id: 'next', src: 'next', input: ({ context }) => context.via, onDone: 'end' } },
      end: { type: 'final' },
    },
    output: ({ context }) => context,
  });
}

/** Sends `event` once the job's checkpoint of `b` (its step running) is stored. */
function sends(...events: Record<string, unknown>[]) {
  return async ({ id, client, probe }: Run): Promise<void> => {
    await eventually(async () => (await client.get(id))?.state === 'b' && probe.calls.includes('work'), 5000);
    for (const e of events) await client.send(id, e as { type: string });
    await client.waitForResult(id, { timeoutMs: 8000 });
  };
}

export const stepEventCases: Case[] = [
  {
    name: 'an event without a target taken while a step runs assigns in place, and the step runs on',
    compiles: true,
    machine: eventMachine,
    drive: sends({ type: 'NOTE', text: 'hi' }),
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { notes: ['hi'], via: 'worked' });
      assert.deepEqual(r.calls, ['work', 'next:worked']);
    },
  },
  {
    name: 'an event taken while a step runs leaves its state: the step is stopped through its signal, its result ignored',
    compiles: true,
    machine: eventMachine,
    drive: sends({ type: 'NOTE', text: 'hi' }, { type: 'SKIP', ok: true }),
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { notes: ['hi'], via: 'skipped' });
      assert.deepEqual(
        r.calls.filter((c) => c !== 'guard allowed'),
        ['work', 'work aborted:AbortError', 'next:skipped'],
      );
    },
  },
  {
    name: 'an event whose guard is false while a step runs is ignored naming the guard, and the step runs on',
    compiles: true,
    machine: eventMachine,
    drive: sends({ type: 'SKIP', ok: false }),
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { notes: [], via: 'worked' });
      const ignored = r.log.find((e) => e.type === 'event-ignored');
      assert.match(String(ignored?.reason), /guard returned false: 'allowed'/);
    },
  },
];
