// A store whose enqueue answers only once the jobs it made have run and their records are gone:
// the race between an enqueue and the wait that follows it, made certain. A minimal job (its
// record deleted as it ends done) then always ends before its caller's next call.

import type { EnqueueResult, NewJob, Store } from '../../src/store/types.js';
import { eventually } from './redis.js';

/**
 * `store` with `enqueue` held until each job it returned has no record (a supervisor on `store`
 * must run them). `before`, when given, runs after the write and before the hold (a test's way to
 * let a held job go).
 */
export function endsBeforeReply<S extends Store>(store: S, before?: () => void): S {
  return new Proxy(store, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (prop === 'enqueue')
        return async (queue: string, jobs: NewJob[]): Promise<EnqueueResult[]> => {
          const res = await target.enqueue(queue, jobs);
          before?.();
          await eventually(
            async () =>
              (await Promise.all(res.map((r) => target.getJob(r.id, queue)))).every((j) => j === null),
            10_000,
          );
          return res;
        };
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
