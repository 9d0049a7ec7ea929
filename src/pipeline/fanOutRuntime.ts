// The worker side of fanOut: opens the parent's fan-out record, enqueues the children (idempotent:
// their ids are deterministic), then waits for the store to say the set is complete, and turns
// the children's outcomes into the step's output or failure.

import { reviveValue } from '../store/valueCodec.js';
import { ValidationError, type StoredError } from '../errors.js';
import type { FanState } from '../store/types.js';
import { childId } from '../store/keys.js';
import { ChildJobFailedError, type ChildOutcome, type FanOutInput, type FanOutJob } from './fanOut.js';

/** What a fan-out needs of its parent's run (runPipeline builds it from the AttemptHost). */
export interface FanOutHost {
  /** The parent's queue (its children's default). */
  queue: string;
  parentId: string;
  fanOpen(group: string, total: number, policy: 'failFast' | 'collect'): Promise<FanState>;
  /**
   * `revive`: indexes of children to make anew if they ended failed or cancelled (the parent
   * was redriven and their outcomes dropped).
   */
  enqueueChildren(group: string, jobs: FanOutJob[], revive: ReadonlySet<number>): Promise<void>;
  cancelJob(id: string, queue: string): Promise<void>;
  /** Resolves on the next fan-in notification for this parent. */
  nextFanIn(signal: AbortSignal): Promise<void>;
}

const KEY = /^[A-Za-z0-9._-]{1,64}$/;

function validate(input: unknown): asserts input is FanOutInput {
  const i = input as FanOutInput;
  if (!i || !Array.isArray(i.jobs))
    throw new ValidationError('fanOut input needs `jobs`: an array of { machine, input }', { field: 'jobs' });
  i.jobs.forEach((j, n) => {
    if (!j || typeof j.machine !== 'string')
      throw new ValidationError(`fanOut jobs[${n}] needs a machine name`, { field: `jobs[${n}].machine` });
  });
  if (i.policy !== undefined && i.policy !== 'failFast' && i.policy !== 'collect') {
    throw new ValidationError("fanOut policy must be 'failFast' or 'collect'", { field: 'policy' });
  }
  if (i.key !== undefined && !KEY.test(i.key))
    throw new ValidationError('fanOut key must be 1-64 letters, digits, . _ -', { field: 'key' });
}

const complete = (s: FanState) => s.finished >= s.total || (s.policy === 'failFast' && s.failed > 0);

export async function runFanOut(
  host: FanOutHost,
  group: string,
  rawInput: unknown,
  signal: AbortSignal,
): Promise<unknown[]> {
  validate(rawInput);
  const input = rawInput;
  const policy = input.policy ?? 'failFast';
  const g = input.key ? `${group}~${input.key}` : group;
  const total = input.jobs.length;
  if (total === 0) return [];
  let state = await host.fanOpen(g, total, policy);
  if (!complete(state)) {
    const revive = new Set<number>();
    if (state.revive) for (let i = 0; i < total; i++) if (!state.results.has(i)) revive.add(i);
    await host.enqueueChildren(g, input.jobs, revive);
    state = await host.fanOpen(g, total, policy);
  }
  while (!complete(state)) {
    await host.nextFanIn(signal);
    state = await host.fanOpen(g, total, policy);
  }
  const outcomes: ChildOutcome[] = [];
  let firstFailure: ChildOutcome | undefined;
  for (let i = 0; i < total; i++) {
    const id = childId(host.parentId, g, i);
    const text = state.results.get(i);
    if (text === undefined) {
      outcomes.push({ id, status: 'cancelled' });
      continue;
    }
    const r = JSON.parse(text) as { s: ChildOutcome['status']; o?: unknown; e?: StoredError };
    const o: ChildOutcome =
      r.s === 'done'
        ? { id, status: 'done', output: reviveValue(r.o ?? null) }
        : { id, status: r.s, error: r.e ?? null };
    if (r.s !== 'done' && !firstFailure) firstFailure = o;
    outcomes.push(o);
  }
  if (policy === 'collect') return outcomes;
  if (firstFailure) {
    // failFast: the unfinished siblings are cancelled (with their own subtrees).
    await Promise.all(
      input.jobs.map((j, i) =>
        state.results.has(i)
          ? Promise.resolve()
          : host.cancelJob(childId(host.parentId, g, i), j.queue ?? host.queue).catch(() => undefined),
      ),
    );
    throw new ChildJobFailedError(firstFailure.id, firstFailure.status, firstFailure.error ?? null);
  }
  return outcomes.map((o) => o.output);
}
