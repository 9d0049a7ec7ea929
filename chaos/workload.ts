// The jobs of the chaos tests, shared by the worker processes (which run them) and the producer
// (which enqueues them by name). Every job announces each side effect of its work through
// `Effects` before doing it, so the oracle knows how often each piece of work ran and where.
//
//   simple    one side effect, then sleeps input.ms (the mix's bulk)
//   flow      step a, a durable 150 ms timer, waits for the GO event (taken in any state, so an
//             early GO is not ignored), step b; output { go: n }
//   fan       step prep, a fan-out of 4 `leaf` children (collect), step merge
//   failing   always throws: maxAttempts 4, fixed 50 ms backoff (T10)
//   flaky     throws on attempt 1, retried after 10 s (10x the lease), succeeds on attempt 2 (T10)
//   long      a 10 s job (10x the lease) that waits on timers: heartbeats stay healthy (T11)
//   blocker   blocks its event loop 2.5 s (2.5x the lease) in a busy loop (T11)

import { assign, setup } from 'xstate';
import { defineJob, definePipeline, fanOut, step } from '../src/index.js';

export interface Effects {
  /** Called right before a side effect of `jobId`'s work (`part` names the step). */
  effect(jobId: string, part: string): void;
}

/** The timing profile of every chaos test. */
export const TIMING = { leaseMs: 1000, heartbeatMs: 250, reaperIntervalMs: 200 } as const;
export const GRACE_MS = 5000;
export const FAN_CHILDREN = 4;

/** Parts of each pipeline in order: a checkpoint at a later state means the earlier part is done. */
export const PIPELINE_PARTS: Record<string, { part: string; doneAt: string[] }[]> = {
  flow: [{ part: 'a', doneAt: ['pause', 'awaitGo', 'b'] }],
  fan: [{ part: 'prep', doneAt: ['fanning', 'merge'] }],
};

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

const msOf = (input: unknown): number => {
  const ms = (input as { ms?: unknown } | null)?.ms;
  return typeof ms === 'number' && ms >= 0 && ms < 60_000 ? ms : 0;
};

export function chaosJobs(fx: Effects) {
  const simple = defineJob({
    name: 'simple',
    work: async ({ jobId, input, signal }) => {
      fx.effect(jobId, 'w');
      await pause(msOf(input), signal);
      return { ok: 1 };
    },
  });

  const leaf = defineJob({
    name: 'leaf',
    work: async ({ jobId, input, signal }) => {
      fx.effect(jobId, 'w');
      await pause(msOf(input), signal);
      return { ok: 1 };
    },
  });

  const flow = definePipeline({
    name: 'flow',
    retry: { maxAttempts: 4, backoff: { type: 'fixed', delayMs: 50 } },
    machine: setup({
      types: {
        input: {} as { ms: number },
        context: {} as { ms: number; go: number | null },
        events: {} as { type: 'GO'; n: number },
      },
      actors: {
        stepA: step<number, { ms: number }>(async ({ jobId, input, signal }) => {
          fx.effect(jobId, 'a');
          await pause(input.ms, signal);
          return 1;
        }),
        stepB: step<number, { ms: number }>(async ({ jobId, input, signal }) => {
          fx.effect(jobId, 'b');
          await pause(input.ms, signal);
          return 2;
        }),
      },
    }).createMachine({
      initial: 'a',
      context: ({ input }) => ({ ms: msOf(input), go: null }),
      // GO is taken in any state: one that arrives during step a is kept, not ignored.
      on: { GO: { actions: assign({ go: ({ event }) => event.n }) } },
      states: {
        a: {
          invoke: { id: 'a', src: 'stepA', input: ({ context }) => ({ ms: context.ms }), onDone: 'pause' },
        },
        pause: { after: { 150: 'awaitGo' } },
        awaitGo: { always: { guard: ({ context }) => context.go !== null, target: 'b' } },
        b: { invoke: { id: 'b', src: 'stepB', input: ({ context }) => ({ ms: context.ms }), onDone: 'end' } },
        end: { type: 'final' },
      },
      output: ({ context }) => ({ go: context.go }),
    }),
  });

  const fan = definePipeline({
    name: 'fan',
    retry: { maxAttempts: 4, backoff: { type: 'fixed', delayMs: 50 } },
    machine: setup({
      types: { input: {} as { ms: number }, context: {} as { ms: number; results: unknown[] } },
      actors: {
        fanOut,
        prep: step<number, { ms: number }>(async ({ jobId, input, signal }) => {
          fx.effect(jobId, 'prep');
          await pause(input.ms, signal);
          return 1;
        }),
        merge: step<number, unknown>(async ({ jobId }) => {
          fx.effect(jobId, 'merge');
          return 1;
        }),
      },
    }).createMachine({
      initial: 'prep',
      context: ({ input }) => ({ ms: msOf(input), results: [] }),
      states: {
        prep: {
          invoke: {
            id: 'prep',
            src: 'prep',
            input: ({ context }) => ({ ms: context.ms }),
            onDone: 'fanning',
          },
        },
        fanning: {
          invoke: {
            id: 'leaves',
            src: 'fanOut',
            input: ({ context }) => ({
              jobs: Array.from({ length: FAN_CHILDREN }, () => ({
                machine: 'leaf',
                input: { ms: context.ms },
              })),
              policy: 'collect' as const,
            }),
            onDone: { target: 'merge', actions: assign({ results: ({ event }) => event.output }) },
          },
        },
        merge: { invoke: { id: 'merge', src: 'merge', input: () => null, onDone: 'end' } },
        end: { type: 'final' },
      },
      output: ({ context }) => ({ children: context.results.length }),
    }),
  });

  const failing = defineJob({
    name: 'failing',
    retry: { maxAttempts: 4, backoff: { type: 'fixed', delayMs: 50 } },
    work: async ({ jobId }) => {
      fx.effect(jobId, 'run');
      throw new Error('deterministic failure');
    },
  });

  const flaky = defineJob({
    name: 'flaky',
    retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 * TIMING.leaseMs } },
    work: async ({ jobId, attempt }) => {
      fx.effect(jobId, 'run');
      if (attempt === 1) throw new Error('the first attempt fails');
      return { attempt };
    },
  });

  const long = defineJob({
    name: 'long',
    work: async ({ jobId, signal }) => {
      fx.effect(jobId, 'w');
      await pause(10 * TIMING.leaseMs, signal);
      return { ok: 1 };
    },
  });

  const blocker = defineJob({
    name: 'blocker',
    work: async ({ jobId }) => {
      fx.effect(jobId, 'w');
      const end = Date.now() + 2.5 * TIMING.leaseMs;
      while (Date.now() < end) {
        // Spins: no timer, no I/O, no heartbeat runs in this process meanwhile.
      }
      return { ok: 1 };
    },
  });

  return [simple, leaf, flow, fan, failing, flaky, long, blocker];
}

/** For the producer: the same definitions, whose work never runs there. */
export const producerJobs = chaosJobs({ effect: () => {} });
