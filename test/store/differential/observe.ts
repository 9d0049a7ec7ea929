// What the differential test compares between two stores after every step: each known job's
// record (the fields both backends must agree on; no times or lease tokens), its audit log's
// entry types, its inbox, and every queue's counts, dead letters and broken set.

import type { ClaimedJob, JobRecord, Store } from '../../../src/store/types.js';

/** The parts of a record that must not differ between backends. */
export type RecordView = ReturnType<typeof view>;

export function recordView(r: JobRecord | null): RecordView | null {
  return r ? view(r) : null;
}

function view(r: JobRecord) {
  return {
    status: r.status,
    state: r.state,
    output: r.output,
    error: r.error,
    attempts: r.attempts,
    maxAttempts: r.maxAttempts,
    leaseRequeues: r.leaseRequeues,
    priority: r.priority,
    progress: r.progress,
    parentId: r.parentId,
    delayed: r.runAt !== null,
    finished: r.finishedAt !== null,
    cancelRequested: r.cancelRequested,
    snapshot: r.snapshot,
  };
}

/** A claim as the worker sees it, but its lease token (each backend numbers its own). */
export function claimedView(c: ClaimedJob): unknown {
  const { token: _token, ...rest } = c;
  return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
}

/**
 * A rejection as both backends must give it: its code. A script's own refusal on Redis (e.g.
 * BAD_COMMIT) is a bare reply error whose code is the message's first word.
 */
export function errorView(err: unknown): { error: string } {
  const e = err as { code?: unknown; message?: unknown };
  return { error: typeof e.code === 'string' ? e.code : String(e.message).split(' ')[0]! };
}

export interface Observed {
  jobs: Record<
    string,
    { record: RecordView | null; log: string[] | null; inbox: number | null; located: string | null }
  >;
  queues: Record<string, unknown>;
}

export async function observe(
  store: Store,
  jobs: ReadonlyMap<string, string>,
  queues: readonly string[],
): Promise<Observed> {
  const entries = await Promise.all(
    [...jobs].map(async ([id, queue]) => {
      const rec = await store.getJob(id, queue);
      const log = rec ? (await store.getLog(id, queue)).map((e) => e.type) : null;
      const inbox = rec ? (await store.readInbox(id, queue, 0)).length : null;
      // The queue each store finds it in by id alone (queueOf: a send that names none).
      const located = await store.queueOf(id);
      return [id, { record: recordView(rec), log, inbox, located }] as const;
    }),
  );
  const queueViews = await Promise.all(
    queues.map(async (q) => {
      const [counts, dead, broken] = await Promise.all([
        store.counts(q),
        store.deadLetters(q, 1000),
        store.broken(q, 1000),
      ]);
      const view = {
        counts,
        dead: dead.map((d) => [d.id, d.error?.code, d.attempts]),
        broken: broken.map((b) => [b.id, b.reason]),
      };
      return [q, view] as const;
    }),
  );
  return { jobs: Object.fromEntries(entries), queues: Object.fromEntries(queueViews) };
}

/** Every queue's listing, page by page, per status and in all (ids in the order listed). */
export async function listings(store: Store, queues: readonly string[]): Promise<unknown> {
  const out: Record<string, string[]> = {};
  for (const queue of queues)
    for (const status of [undefined, ...STATUSES]) {
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.list({ queue, status, cursor, limit: 7 });
        ids.push(...page.jobs.map((j) => j.id));
        cursor = page.cursor ?? undefined;
      } while (cursor);
      out[`${queue} ${status ?? 'all'}`] = ids;
    }
  return out;
}

const STATUSES = ['queued', 'loading', 'working', 'waiting', 'done', 'failed', 'cancelled'] as const;
