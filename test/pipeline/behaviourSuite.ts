// The pipeline behaviour suite (behaviourCases.ts), for any store: every case runs on both
// runtimes, once as defined (a step-only machine then runs compiled: compileSteps.ts,
// runCompiledPipeline.ts) and once with `compile: false` (XState actors: runPipeline.ts). The two
// MUST NOT drift: their records (status, state, output, attempts, error, progress), stored
// snapshots (`sn`, with times and the job id normalised), audit logs (as `byWriter` splits them)
// and step calls are required equal, and then each case checks what the shared result must be.
// A compiled run is checked to have run compiled (its input mappers get no `self`), so the
// comparison cannot pass by both running on XState. behaviour.test.ts runs it on RedisStore,
// behaviourMemory.test.ts on MemoryStore: the same cases, so the two stores cannot drift under a
// real runtime either.
//
// Each case builds a world of its own (a fresh key prefix, or a fresh MemoryStore) and its own
// probes, so the files run their cases CASES_AT_ONCE at a time: most of a case is waiting on its
// timers (a wait of 1-3 s, on both runtimes one after the other), and one at a time these files
// were the suite's three longest (60, 62 and 32 s).

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { assign, setup } from 'xstate';
import { definePipeline, step, type Client, type ClientOptions, type Supervisor } from '../../src/index.js';
import type { SupervisorOptions } from '../../src/index.js';
import type { AnyDefinition } from '../../src/runtime/registry.js';
import type { Store } from '../../src/store/types.js';
import { gate } from '../support/harness.js';
import { eventually } from '../support/redis.js';
import { Probe, cases, normalised, type Case, type Result } from './behaviourCases.js';
import { valueCases } from './valueCases.js';
import { waitCases } from './waitCases.js';
import { waitEventCases } from './waitEventCases.js';
import { stepTimerCases, stepTimerMachine } from './stepTimerCases.js';
import { lateResultCases } from './lateResultCases.js';
import { guardedAfterCases } from './guardedAfterCases.js';
import { stepEventCases } from './stepEventCases.js';
import { storedTimersOf } from '../../src/pipeline/timers.js';

/** The entry a client's send writes into a job's log (send-5.lua), as it delivers the event. */
const SENT = 'event-received';

/**
 * An audit log as the two runtimes must agree on it: the worker's entries in their order, and the
 * entries the client's sends wrote in theirs. Where a sent entry falls among
 * the worker's is the race of the client's next send against the worker's take, not the runtime's
 * behaviour: of two events sent back to back, the first may be taken (its `event` logged) before
 * the second is received, or after.
 */
function byWriter(log: readonly Record<string, unknown>[]) {
  return {
    worker: log.filter((e) => e.type !== SENT),
    sent: log.filter((e) => e.type === SENT),
  };
}

/** How many cases a file runs at once (describe's `concurrency`): each in a world of its own. */
export const CASES_AT_ONCE = 4;

/** One case's world: a fresh store, supervisors and clients on it, and their cleanup. */
export interface BehaviourWorld {
  readonly store: Store;
  started(options: Partial<SupervisorOptions> & Pick<SupervisorOptions, 'jobs'>): Promise<Supervisor>;
  client(options?: Partial<ClientOptions>): Client;
  close(): Promise<void>;
}

/**
 * `only`: run the cases whose name it accepts, and not the handover case (a variant of a store
 * run for what it changes: Redis Cluster runs the cases that use a control message, an inbox, a
 * redrive or child jobs).
 */
export function behaviourSuite(world: () => BehaviourWorld, only?: (caseName: string) => boolean): void {
  /** Runs the case's job on one runtime (`-c`: as defined; `-x`: compile: false). */
  async function runOn(h: BehaviourWorld, c: Case, jobs: AnyDefinition[], probe: Probe, name: string) {
    let sup: Supervisor = await h.started({ jobs });
    const client = h.client({ jobs });
    const id = await client.enqueue(name, c.input ?? {});
    const run = {
      id,
      client,
      probe,
      supervisor: () => sup,
      restart: async () => {
        await sup.stop({ graceMs: 0 });
        sup = await h.started({ jobs });
      },
    };
    if (c.drive) await c.drive(run);
    else await client.waitForResult(id, { timeoutMs: 8000 });
    const rec = (await client.get(id))!;
    const log = (await h.store.getLog(id)) as Record<string, unknown>[];
    const dead = await client.deadLetters();
    await sup.stop({ graceMs: 0 });
    return {
      ...normalised(rec, log),
      calls: probe.calls,
      deadLettered: dead.some((d) => d.id === id),
    } satisfies Result;
  }

  for (const [i, c] of [
    ...cases,
    ...valueCases,
    ...waitCases,
    ...waitEventCases,
    ...stepTimerCases,
    ...lateResultCases,
    ...guardedAfterCases,
    ...stepEventCases,
  ].entries()) {
    if (only && !only(c.name)) continue;
    it(c.name, async () => {
      const h = world();
      try {
        const probes = { c: new Probe(), x: new Probe() };
        const options = { retry: c.retry, timeoutMs: c.timeoutMs };
        const compiled = definePipeline({ name: `case${i}c`, machine: c.machine(probes.c), ...options });
        const xstate = definePipeline({
          name: `case${i}x`,
          machine: c.machine(probes.x),
          ...options,
          compile: false,
        });
        assert.equal(Boolean(compiled.compiled), c.compiles, 'the machine compiles as the case says');
        const jobs = [compiled, xstate, ...(c.jobs ?? [])];
        const onCompiled = await runOn(h, c, jobs, probes.c, `case${i}c`);
        const onXState = await runOn(h, c, jobs, probes.x, `case${i}x`);
        if (c.compiles) {
          assert.ok(
            probes.c.self.length > 0 && probes.c.self.every((s) => !s),
            'the compiled run had no self',
          );
          assert.ok(probes.x.self.length > 0 && probes.x.self.every((s) => s), 'the XState run had self');
        }
        assert.deepEqual(onCompiled.calls, onXState.calls, 'the same steps ran, in the same order');
        assert.deepEqual(onCompiled.record, onXState.record, 'the same record and stored snapshot');
        assert.deepEqual(byWriter(onCompiled.log), byWriter(onXState.log), 'the same audit log');
        assert.equal(onCompiled.deadLettered, onXState.deadLettered);
        c.expect(onCompiled);
      } finally {
        await h.close();
      }
    });
  }

  if (only) return;
  /**
   * A job parked by one runtime is resumed by the other, both ways: `make(compile, seen)` defines
   * the pipeline (its step's input mapper records which runtime ran it in `seen`), `wake` wakes the
   * parked job (nothing: its timer), and the job must end done with `output`, its resume run on
   * the second runtime.
   */
  async function handsOver(
    make: (compile: boolean, seen: string[]) => AnyDefinition & { compiled?: unknown; name: string },
    input: unknown,
    wake: (client: Client, id: string) => Promise<void>,
    output: number,
  ): Promise<void> {
    for (const [first, second] of [
      [true, false],
      [false, true],
    ] as const) {
      const h = world();
      try {
        const seen: string[] = [];
        assert.ok(make(true, []).compiled, 'the machine compiles');
        const sup1 = await h.started({ jobs: [make(first, seen)] });
        const client = h.client({ jobs: [make(first, seen)] });
        const id = await client.enqueue(make(first, seen).name, input);
        await eventually(async () => (await client.get(id))?.status === 'waiting');
        await sup1.stop({ graceMs: 0 });
        await h.started({ jobs: [make(second, seen)] });
        await wake(client, id);
        const done = await client.waitForResult(id, { timeoutMs: 5000 });
        const how = `${first ? 'compiled' : 'XState'} -> ${second ? 'compiled' : 'XState'}`;
        assert.equal(done.status, 'done', how);
        assert.equal(done.output, output, how);
        assert.deepEqual(
          seen,
          [second ? 'compiled' : 'XState'],
          `${how}: the resume ran on the second runtime`,
        );
      } finally {
        await h.close();
      }
    }
  }

  it('resumes a job parked on a timer by one runtime in the other', async () => {
    await handsOver(
      (compile, seen) =>
        definePipeline({
          name: 'parkedHandover',
          compile,
          machine: setup({
            types: { input: {} as { ms: number }, context: {} as { ms: number; k: number } },
            actors: { s: step<number, number>(async ({ input }) => input * 2) },
            delays: { pause: ({ context }) => context.ms },
          }).createMachine({
            initial: 'waiting',
            context: ({ input }) => ({ ms: input.ms, k: 4 }),
            states: {
              waiting: { after: { pause: 's' } },
              s: {
                invoke: {
                  id: 's',
                  src: 's',
                  input: (a: { context: { k: number }; self?: unknown }) => {
                    seen.push(a.self === undefined ? 'compiled' : 'XState');
                    return a.context.k;
                  },
                  onDone: { target: 'end', actions: assign({ k: ({ event }) => event.output }) },
                },
              },
              end: { type: 'final' },
            },
            output: ({ context }) => context.k,
          }),
        }),
      { ms: 600 },
      async () => {},
      8,
    );
  });

  it('resumes a job parked on several timers and events by one runtime in the other, woken by an event', async () => {
    await handsOver(
      (compile, seen) =>
        definePipeline({
          name: 'eventHandover',
          compile,
          machine: setup({
            types: { context: {} as { k: number }, events: {} as { type: 'GO'; k: number } },
            actors: { s: step<number, number>(async ({ input }) => input * 2) },
            delays: { pause: 30_000 },
          }).createMachine({
            initial: 'waiting',
            context: { k: 4 },
            states: {
              waiting: {
                after: { 60000: 'end', pause: 's' },
                on: { GO: { target: 's', actions: assign({ k: ({ event }) => event.k }) } },
              },
              s: {
                invoke: {
                  id: 's',
                  src: 's',
                  input: (a: { context: { k: number }; self?: unknown }) => {
                    seen.push(a.self === undefined ? 'compiled' : 'XState');
                    return a.context.k;
                  },
                  onDone: { target: 'end', actions: assign({ k: ({ event }) => event.output }) },
                },
              },
              end: { type: 'final' },
            },
            output: ({ context }) => context.k,
          }),
        }),
      {},
      (client, id) => client.send(id, { type: 'GO', k: 7 }),
      14,
    );
  });

  it('resumes a step with a timeout checkpointed by one runtime in the other: the step re-runs, its timer keeps its due time', async () => {
    // `due`: the second runtime starts once the timer is due (it fires at once, the re-run step
    // is aborted); else 2 s before it (it fires at its stored due time, not a full delay on).
    for (const due of [false, true])
      for (const [first, second] of [
        [true, false],
        [false, true],
      ] as const) {
        const h = world();
        try {
          const probe = new Probe();
          const make = (compile: boolean) =>
            definePipeline({
              name: 'timedHandover',
              compile,
              machine: stepTimerMachine(probe, { work: 60_000 }),
            });
          assert.ok(make(true).compiled, 'the machine compiles');
          const how = `${first ? 'compiled' : 'XState'} -> ${second ? 'compiled' : 'XState'}${due ? ', due' : ''}`;
          const sup1 = await h.started({ jobs: [make(first)] });
          const client = h.client({ jobs: [make(first)] });
          const id = await client.enqueue('timedHandover', { limit: 3000 });
          await eventually(async () => (await client.get(id))?.state === 'slow');
          const [timer] = storedTimersOf((await client.get(id))!.snapshot);
          assert.equal(timer?.event, 'xstate.after.limit.timed.slow', how);
          await sup1.stop({ graceMs: 0 }); // shutdown: the job is requeued from its checkpoint
          const resumeAt = due ? timer.dueAt + 50 : timer.dueAt - 2000;
          await new Promise((r) => setTimeout(r, Math.max(0, resumeAt - Date.now())));
          const selfBefore = probe.self.length;
          await h.started({ jobs: [make(second)] });
          const done = await client.waitForResult(id, { timeoutMs: 5000 });
          assert.equal(done.status, 'done', how);
          assert.deepEqual(done.output, { n: 2, via: 'limit' }, how);
          assert.deepEqual(
            probe.calls,
            [
              'first:1',
              'slow:{"n":2}:slow:1',
              'slow aborted:AbortedError',
              'slow:{"n":2}:slow:1',
              'slow aborted:AbortError',
              'late:limit',
            ],
            `${how}: the step re-ran with its stored input and key, and was aborted by its timer`,
          );
          assert.deepEqual(
            probe.self.slice(selfBefore),
            [!second],
            `${how}: the resume ran on the second runtime`,
          );
          const log = (await h.store.getLog(id)) as { type: string; state?: unknown; at: number }[];
          const late = log.find((e) => e.type === 'state' && e.state === 'late');
          assert.ok(late, JSON.stringify(log));
          // Fired at its stored due time, not a full delay after the resume (>= dueAt + 1000).
          assert.ok(
            late.at >= timer.dueAt - 20 && late.at < timer.dueAt + 800,
            `${how}: ${late.at - timer.dueAt} ms late`,
          );
        } finally {
          await h.close();
        }
      }
  });

  it('resumes a job checkpointed by one runtime in the other, re-running only the interrupted step', async () => {
    for (const [first, second] of [
      [true, false],
      [false, true],
    ] as const) {
      const h = world();
      try {
        const calls: string[] = [];
        let release = gate();
        const make = (compile: boolean) =>
          definePipeline({
            name: 'handover',
            compile,
            machine: setup({
              actors: {
                one: step(async () => void calls.push('one')),
                slow: step(async ({ idempotencyKey, signal }) => {
                  calls.push(`slow ${idempotencyKey.split(':').slice(1).join(':')}`);
                  await Promise.race([
                    release.promise,
                    new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
                  ]);
                  return 'slow done';
                }),
              },
            }).createMachine({
              initial: 'a',
              context: { got: null },
              states: {
                a: { invoke: { id: 'one', src: 'one', onDone: 'b' } },
                b: {
                  invoke: {
                    id: 'slow',
                    src: 'slow',
                    input: () => ({ k: 1 }),
                    onDone: { target: 'end', actions: assign({ got: ({ event }) => event.output }) },
                  },
                },
                end: { type: 'final' },
              },
              output: ({ context }) => context.got,
            }),
          });
        const sup1 = await h.started({ jobs: [make(first)] });
        const client = h.client({ jobs: [make(first)] });
        const id = await client.enqueue('handover', {});
        // The checkpoint of state b (the slow step running) is stored by the first runtime.
        await eventually(async () => (await client.get(id))?.state === 'b');
        await sup1.stop({ graceMs: 0 }); // shutdown: the job is requeued from its checkpoint
        release = gate();
        release.open();
        await h.started({ jobs: [make(second)] });
        const done = await client.waitForResult(id, { timeoutMs: 5000 });
        const how = `${first ? 'compiled' : 'XState'} -> ${second ? 'compiled' : 'XState'}`;
        assert.equal(done.status, 'done', how);
        assert.equal(done.output, 'slow done');
        assert.deepEqual(
          calls,
          ['one', 'slow slow:1', 'slow slow:1'],
          'step one ran once; slow re-ran with its key',
        );
      } finally {
        await h.close();
      }
    }
  });
}
