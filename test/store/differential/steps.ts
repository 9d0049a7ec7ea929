// The differential test's operations: a seeded random mix of every Store call a client, a worker
// and the reaper make, each built from the shared model (which jobs exist, their status as last
// observed) and run on one backend at a time (a `Side`, holding that backend's lease tokens).
// A step's answer is normalised (no tokens, no times) so both backends' answers compare equal.

import type { CommitOp, JobStatus, NewJob, ReapResult, Store } from '../../../src/store/types.js';
import { claimedView, errorView, recordView } from './observe.js';
import type { Random } from './random.js';

export const QUEUES = ['default', 'side'] as const;
/** Long enough that no lease of a normal claim passes during a sequence. */
const LONG_LEASE = 600_000;
/** A delay or wake time that never comes due during a sequence. */
const FAR = 1e9;
/** A lease that has surely passed after SHORT_WAIT ms, on either backend's clock. */
const SHORT_LEASE = 20;
const SHORT_WAIT = 70;

/** One backend under test, with the lease tokens its claims handed out. */
export interface Side {
  store: Store;
  /** The token of each job's latest claim on this backend. */
  tokens: Map<string, string>;
  /** The token of the claim before it (a stale worker's). */
  stale: Map<string, string>;
}

/** A fan-out a parent opened. */
interface Fan {
  group: string;
  total: number;
  policy: 'failFast' | 'collect';
  childQueue: string;
}

/** A fan-out's children, as a worker enqueues them (`revive`: anew, after a redrive). */
function children(
  parent: string,
  group: string,
  total: number,
  childQueue: string,
  revive = false,
): NewJob[] {
  return Array.from({ length: total }, (_, index) => ({
    id: `${parent}.${group}.${index}`,
    machine: 'm',
    version: 1,
    input: JSON.stringify({ index }),
    band: 2,
    delayMs: 0,
    maxAttempts: 2,
    parentId: parent,
    group,
    index,
    parentQueue: childQueue === 'default' ? '' : 'default',
    ...(revive ? { revive } : {}),
  }));
}

/** What both sides share: the jobs made so far and their status as last observed. */
export class Model {
  readonly jobs = new Map<string, (typeof QUEUES)[number]>();
  readonly status = new Map<string, JobStatus | null>();
  readonly attempts = new Map<string, number>();
  /** How many events each job's inbox holds. */
  readonly inbox = new Map<string, number>();
  /** Fan-outs opened: parent id to its groups. */
  readonly fans = new Map<string, Fan[]>();
  private n = 0;

  newId(): string {
    return `j${String(++this.n).padStart(4, '0')}`;
  }

  ids(filter?: (s: JobStatus | null) => boolean): string[] {
    return [...this.jobs.keys()].filter((id) => !filter || filter(this.status.get(id) ?? null));
  }

  held(queue?: string): string[] {
    return this.ids((s) => s === 'working' || s === 'loading').filter(
      (id) => !queue || this.jobs.get(id) === queue,
    );
  }
}

export interface Step {
  name: string;
  run(side: Side): Promise<unknown>;
}

/** Runs `fn`, answering its result or its rejection's code. */
async function settled(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    return await fn();
  } catch (err) {
    return errorView(err);
  }
}

function noteClaims(side: Side, claimed: { id: string; token: string }[]): void {
  for (const c of claimed) {
    const old = side.tokens.get(c.id);
    if (old) side.stale.set(c.id, old);
    side.tokens.set(c.id, c.token);
  }
}

type Pick = (r: Random, m: Model) => Step | null;

const enqueue: Pick = (r, m) => {
  const queue = r.chance(0.8) ? 'default' : 'side';
  const existing = m.ids().filter((id) => m.jobs.get(id) === queue);
  const jobs: NewJob[] = [];
  for (let i = r.int(3) + 1; i > 0; i--) {
    const reuse = existing.length > 0 && r.chance(0.1);
    const id = reuse ? r.pick(existing) : m.newId();
    if (!reuse) m.jobs.set(id, queue);
    jobs.push({
      id,
      machine: r.chance(0.25) ? 'L' : 'm',
      version: 1,
      input: JSON.stringify({ n: r.int(100) }),
      band: r.int(4),
      delayMs: r.chance(0.8) ? 0 : FAR,
      maxAttempts: r.int(3) + 1,
      ...(r.chance(0.3) ? { idempotencyKey: `k${r.int(4)}` } : {}),
    });
  }
  return {
    name: `enqueue ${queue} ${jobs.map((j) => `${j.id}/b${j.band}/d${j.delayMs}/k${j.idempotencyKey ?? '-'}`).join(' ')}`,
    run: (side) => settled(() => side.store.enqueue(queue, jobs)),
  };
};

async function claimOn(
  side: Side,
  queue: string,
  max: number,
  leaseMs: number,
  ops: (s: Side) => CommitOp[],
) {
  const res = await side.store.commit(queue, ops(side), {
    workerId: 'w',
    max,
    leaseMs,
    loadMachines: ['L'],
  });
  noteClaims(side, res.claimed);
  return { written: res.written, claimed: res.claimed.map(claimedView), nextDue: res.nextDueAt !== null };
}

const claim: Pick = (r) => {
  const queue = r.chance(0.75) ? 'default' : 'side';
  const max = r.int(3) + 1;
  return {
    name: `claim ${queue} max ${max}`,
    run: (side) => settled(() => claimOn(side, queue, max, LONG_LEASE, () => [])),
  };
};

const KINDS = ['done', 'fail', 'retry', 'park', 'checkpoint', 'requeue', 'broken', 'cancelled'] as const;

/** One commit op of a random kind for job `id`, with this side's token (or a stale or foreign one). */
function commitOp(r: Random, m: Model, id: string): { name: string; op: (s: Side) => CommitOp } {
  const kind = r.pick(KINDS);
  const tokenKind = r.chance(0.88) ? 'own' : r.pick(['stale', 'foreign'] as const);
  const token = (s: Side) =>
    tokenKind === 'own'
      ? (s.tokens.get(id) ?? 'none:0')
      : tokenKind === 'stale'
        ? (s.stale.get(id) ?? 'none:0')
        : 'nobody:1';
  const log = [JSON.stringify({ type: `op-${kind}` })];
  const n = r.int(1000);
  const name = `${kind} ${id} (${tokenKind} token)`;
  switch (kind) {
    case 'done':
      return {
        name,
        op: (s) => ({ kind, id, token: token(s), output: `{"o":${n}}`, snapshot: '', state: '"end"', log }),
      };
    case 'fail': {
      const resume = r.chance(0.3) ? `{"resume":${n}}` : undefined;
      const error = JSON.stringify({ name: 'Error', message: `boom ${n}`, code: 'E_BOOM' });
      return { name, op: (s) => ({ kind, id, token: token(s), error, resume, snapshot: `{"f":${n}}`, log }) };
    }
    case 'retry': {
      const delayMs = r.chance(0.7) ? 0 : FAR;
      const attempt = (m.attempts.get(id) ?? 0) + 1;
      const error = JSON.stringify({ name: 'Error', message: 'flaky', code: 'E_FLAKY' });
      return {
        name: `${name} delay ${delayMs}`,
        op: (s) => ({ kind, id, token: token(s), error, delayMs, attempt, log }),
      };
    }
    case 'park': {
      const wakeAt = r.pick([null, 1, 4e12]);
      // A worker takes in no more events than the inbox holds (a position past its end is no
      // state a runtime writes, and the backends keep it differently: see the test's header).
      const inboxConsumed = r.chance(0.3) ? r.int((m.inbox.get(id) ?? 0) + 1) : undefined;
      return {
        name: `${name} wake ${wakeAt}`,
        op: (s) => ({
          kind,
          id,
          token: token(s),
          wakeAt,
          snapshot: `{"p":${n}}`,
          state: '"parked"',
          inboxConsumed,
          log,
        }),
      };
    }
    case 'checkpoint': {
      const status = r.chance(0.8) ? 'working' : 'loading';
      return {
        name: `${name} ${status}`,
        op: (s) => ({
          kind,
          id,
          token: token(s),
          status,
          snapshot: `{"c":${n}}`,
          state: `"s${n}"`,
          progress: `{"p":${n}}`,
          log,
        }),
      };
    }
    case 'requeue':
      return { name, op: (s) => ({ kind, id, token: token(s), log }) };
    case 'broken': {
      const error = JSON.stringify({ name: 'Error', message: 'no machine', code: 'UNKNOWN_MACHINE' });
      return { name, op: (s) => ({ kind, id, token: token(s), error, log }) };
    }
    case 'cancelled':
      return { name, op: (s) => ({ kind, id, token: token(s), snapshot: `{"x":${n}}`, log }) };
  }
}

const commit: Pick = (r, m) => {
  const held = m.held();
  const all = m.ids();
  if (all.length === 0) return null;
  const first = held.length > 0 && r.chance(0.85) ? r.pick(held) : r.pick(all);
  const queue = m.jobs.get(first)!;
  const ops = [commitOp(r, m, first)];
  const more = held.filter((id) => id !== first && m.jobs.get(id) === queue);
  if (more.length > 0 && r.chance(0.2)) ops.push(commitOp(r, m, r.pick(more)));
  const withClaim = r.chance(0.2);
  const max = r.int(2) + 1;
  return {
    name: `commit ${queue} [${ops.map((o) => o.name).join(', ')}]${withClaim ? ` + claim ${max}` : ''}`,
    run: (side) =>
      settled(async () => {
        const build = (s: Side) => ops.map((o) => o.op(s));
        if (withClaim) return claimOn(side, queue, max, LONG_LEASE, build);
        const res = await side.store.commit(queue, build(side));
        return { written: res.written, claimed: res.claimed };
      }),
  };
};

const malformed: Pick = (r, m) => {
  const held = m.held();
  if (held.length === 0) return null;
  const id = r.pick(held);
  const queue = m.jobs.get(id)!;
  return {
    name: `malformed commit ${id}`,
    run: (side) =>
      settled(() =>
        side.store.commit(queue, [
          { kind: 'done', id, token: side.tokens.get(id)!, output: '1', snapshot: '', log: [] },
          { kind: 'checkpoint', id, token: side.tokens.get(id)!, status: 'done' as never, log: [] },
        ]),
      ),
  };
};

const heartbeat: Pick = (r, m) => {
  const all = m.ids();
  if (all.length === 0) return null;
  const queue = r.pick(QUEUES);
  const pool = [...m.held(queue), ...all.filter((id) => m.jobs.get(id) === queue)];
  if (pool.length === 0) return null;
  const leases = Array.from({ length: r.int(3) + 1 }, () => ({ id: r.pick(pool), foreign: r.chance(0.1) }));
  return {
    name: `heartbeat ${queue} ${leases.map((l) => l.id + (l.foreign ? '(foreign)' : '')).join(' ')}`,
    run: (side) =>
      settled(() =>
        side.store.heartbeat(
          queue,
          leases.map((l) => ({
            id: l.id,
            token: l.foreign ? 'nobody:1' : (side.tokens.get(l.id) ?? 'none:0'),
          })),
          LONG_LEASE,
        ),
      ),
  };
};

/** Claims with a short lease, waits until it has surely passed on both clocks, then reaps. */
const expire: Pick = (r) => {
  const queue = r.chance(0.75) ? 'default' : 'side';
  const max = r.int(2) + 1;
  const maxLeaseRequeues = r.int(3);
  // Before the reaper comes: the worker may still heartbeat, or write (its lease passed, but its
  // token is still the job's).
  const late = r.pick(['nothing', 'heartbeat', 'checkpoint', 'done'] as const);
  return {
    name: `claim ${queue} max ${max} with a ${SHORT_LEASE} ms lease, wait, ${late}, reap (budget ${maxLeaseRequeues})`,
    run: (side) =>
      settled(async () => {
        const claimed = await claimOn(side, queue, max, SHORT_LEASE, () => []);
        await new Promise((res) => setTimeout(res, SHORT_WAIT));
        const ids = claimed.claimed.map((c) => (c as { id: string }).id);
        const leases = ids.map((id) => ({ id, token: side.tokens.get(id)! }));
        let wrote: unknown = null;
        if (late === 'heartbeat') wrote = await side.store.heartbeat(queue, leases, SHORT_LEASE);
        else if (late === 'checkpoint')
          wrote = (
            await side.store.commit(
              queue,
              leases.map((l) => ({ kind: 'checkpoint', ...l, status: 'working', progress: '1', log: [] })),
            )
          ).written;
        else if (late === 'done')
          wrote = (
            await side.store.commit(
              queue,
              leases.map((l) => ({ kind: 'done', ...l, output: '1', snapshot: '', log: [] })),
            )
          ).written;
        // A heartbeat or checkpoint gave the lease SHORT_LEASE more: let that pass too.
        if (late === 'heartbeat' || late === 'checkpoint')
          await new Promise((res) => setTimeout(res, SHORT_WAIT));
        const reaped = reapView(await side.store.reap(queue, { maxLeaseRequeues, lockMs: 1 }));
        return { claimed, wrote, reaped };
      }),
  };
};

const reap: Pick = (r) => {
  const queue = r.pick(QUEUES);
  return {
    name: `reap ${queue}`,
    run: (side) =>
      settled(async () => reapView(await side.store.reap(queue, { maxLeaseRequeues: 2, lockMs: 1 }))),
  };
};

/** A reap's answer without its time: only whether a lease is still running is compared. */
function reapView(r: ReapResult): { requeued: string[]; failed: string[]; leaseRunning: boolean } {
  return { requeued: r.requeued, failed: r.failed, leaseRunning: r.nextDueMs !== undefined };
}

/** A known job (its queue), or now and then one that does not exist. */
function someJob(r: Random, m: Model): { id: string; queue: string } {
  const all = m.ids();
  if (all.length === 0 || r.chance(0.05)) return { id: 'missing', queue: 'default' };
  const id = r.pick(all);
  return { id, queue: m.jobs.get(id)! };
}

const cancel: Pick = (r, m) => {
  const { id, queue } = someJob(r, m);
  const named = r.chance(0.5);
  return {
    name: `cancel ${id}${named ? ` on ${queue}` : ''}`,
    run: (side) => settled(() => side.store.cancel(id, named ? queue : undefined, 'by test')),
  };
};

const send: Pick = (r, m) => {
  const { id, queue } = someJob(r, m);
  const eventId = `e${r.int(3)}`;
  const type = r.pick(['A', 'B']);
  return {
    name: `send ${id} ${type} id ${eventId}`,
    run: (side) => settled(() => side.store.send(id, queue, JSON.stringify({ type }), type, eventId)),
  };
};

const retryDead: Pick = (r, m) => {
  const failed = m.ids((s) => s === 'failed');
  // A parent first, when one failed: its redrive revives its fan-outs' failed children.
  const parents = failed.filter((id) => m.fans.has(id));
  const picked =
    parents.length > 0 && r.chance(0.5)
      ? r.pick(parents)
      : failed.length > 0 && r.chance(0.8)
        ? r.pick(failed)
        : undefined;
  const { id, queue } = picked ? { id: picked, queue: m.jobs.get(picked)! } : someJob(r, m);
  return {
    name: `retryDeadLetter ${id}`,
    run: (side) => settled(async () => (await side.store.retryDeadLetter(id, queue), 'ok')),
  };
};

const purgeOne: Pick = (r, m) => {
  const { id, queue } = someJob(r, m);
  return {
    name: `purgeDeadLetter ${id}`,
    run: (side) => settled(() => side.store.purgeDeadLetter(id, queue)),
  };
};

const purgeAll: Pick = (r) => {
  const queue = r.pick(QUEUES);
  return {
    name: `purgeDeadLetters ${queue}`,
    run: (side) => settled(() => side.store.purgeDeadLetters(queue)),
  };
};

/** A worker's fan-out: open the record, enqueue the children, park the parent to wait for them. */
const fanOut: Pick = (r, m) => {
  const parents = m.held('default').filter((id) => (m.fans.get(id)?.length ?? 0) < 2 && !id.includes('.'));
  if (parents.length === 0) return null;
  const parent = r.pick(parents);
  const groups = m.fans.get(parent) ?? [];
  const group = `g${groups.length}`;
  const total = r.int(3) + 1;
  const policy = r.pick(['failFast', 'collect'] as const);
  const childQueue = r.chance(0.7) ? 'default' : 'side';
  groups.push({ group, total, policy, childQueue });
  m.fans.set(parent, groups);
  const kids = children(parent, group, total, childQueue);
  for (const k of kids) m.jobs.set(k.id, childQueue);
  const park = r.chance(0.85);
  return {
    name: `fan out ${parent} ${group} x${total} ${policy} on ${childQueue}${park ? ', park' : ''}`,
    run: (side) =>
      settled(async () => {
        const fan = fanView(await side.store.fanOpen(parent, 'default', group, total, policy));
        const made = await side.store.enqueue(childQueue, kids);
        const token = side.tokens.get(parent) ?? 'none:0';
        const parked = park
          ? await side.store.commit('default', [
              { kind: 'park', id: parent, token, wakeAt: null, snapshot: '{"fan":1}', log: [] },
            ])
          : null;
        return { fan, made, parked: parked?.written };
      }),
  };
};

function fanView(f: {
  total: number;
  policy: string;
  finished: number;
  failed: number;
  results: Map<number, string>;
  revive: boolean;
}) {
  return { ...f, results: [...f.results].sort((a, b) => a[0] - b[0]) };
}

const fanRead: Pick = (r, m) => {
  const parents = [...m.fans.keys()];
  if (parents.length === 0) return null;
  const parent = r.pick(parents);
  const { group, total, policy } = r.pick(m.fans.get(parent)!);
  return {
    name: `read fan ${parent} ${group}`,
    run: (side) =>
      settled(async () => ({
        fan: fanView(await side.store.fanOpen(parent, 'default', group, total, policy)),
        groups: await side.store.fanGroups(parent, 'default'),
        children: await Promise.all(QUEUES.map((q) => side.store.childIds(parent, q, 0, 10))),
      })),
  };
};

/**
 * A parent's fan-out run again (its job was requeued, retried or redriven): the record as it
 * is, and its children enqueued again, made anew where the record says so (a redrive).
 */
const refan: Pick = (r, m) => {
  const parents = m.held('default').filter((id) => m.fans.has(id));
  if (parents.length === 0) return null;
  const parent = r.pick(parents);
  const { group, total, policy, childQueue } = r.pick(m.fans.get(parent)!);
  return {
    name: `fan out ${parent} ${group} again`,
    run: (side) =>
      settled(async () => {
        const fan = await side.store.fanOpen(parent, 'default', group, total, policy);
        const made = await side.store.enqueue(
          childQueue,
          children(parent, group, total, childQueue, fan.revive),
        );
        return { fan: fanView(fan), made };
      }),
  };
};

const relay: Pick = () => ({
  name: 'relayOutbox side',
  run: (side) => settled(() => side.store.relayOutbox('side')),
});

const watch: Pick = (r, m) => {
  const { id, queue } = someJob(r, m);
  return {
    name: `watch ${id}`,
    run: (side) => settled(async () => recordView(await side.store.watchJob(id, queue, 'watcher'))),
  };
};

const results: Pick = (r) => {
  const queue = r.pick(QUEUES);
  return {
    name: `readResults ${queue}`,
    run: (side) =>
      settled(async () =>
        (await side.store.readResults(queue, 'watcher', 0)).map((j) => [j.id, j.status, recordView(j)]),
      ),
  };
};

const PICKS: [Pick, number][] = [
  [enqueue, 14],
  [claim, 14],
  [commit, 26],
  [malformed, 1],
  [heartbeat, 5],
  [expire, 1.5],
  [reap, 1.5],
  [cancel, 6],
  [send, 8],
  [retryDead, 4],
  [purgeOne, 2],
  [purgeAll, 0.5],
  [fanOut, 6],
  [fanRead, 3],
  [refan, 5],
  [relay, 3],
  [watch, 2],
  [results, 2],
];
const TOTAL = PICKS.reduce((s, [, w]) => s + w, 0);

/** The next step of a sequence (a pick that has nothing to act on gives way to another). */
export function nextStep(r: Random, m: Model): Step {
  for (;;) {
    let x = r.next() * TOTAL;
    for (const [pick, w] of PICKS) {
      if ((x -= w) > 0) continue;
      const step = pick(r, m);
      if (step) return step;
      break;
    }
  }
}
