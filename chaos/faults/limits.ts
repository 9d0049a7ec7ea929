// Faults under the flow gate (issue 24, docs/flow-control.md): T18, SIGKILL of supervisors
// running jobs under a total, a perKey over many keys and a throttle. A killed holder keeps its
// slots until its lease passes and the reaper requeues its jobs (lcLeave frees them there). After
// the run: the delivery contract (the oracle), no slot leaked (every ck:<key> set empty, the
// queue's flow shows nothing running or set aside), every job a killed holder held claimed again
// (its slot returned), and the limits never exceeded while running.
//
// The overlap check is from the oracle's lines, each run being one claim (K, its token) up to its
// ending write (C or F: `sent`, when the commit left the worker). Redis took the slot before the
// K line was written and freed it after the commit was sent, so each interval lies inside the
// slot's true holding: more overlapping intervals than a limit is a real breach, never an
// artefact of the clocks. A killed holder's run has no ending write: its slot is held until the
// reaper requeues the job after its lease passes, and counted here only up to the kill (the
// part that is certain); a run whose write was refused (R, its lease lost) only at its claim.

import { Cluster, QUEUE } from '../cluster.js';
import { WorkerKiller } from '../kills.js';
import { claimedAgain, heldAt, percentile, sleep, writeTimes } from '../lines.js';
import type { OracleLine } from '../oracle.js';
import { rng } from '../mix.js';
import {
  contractTargets,
  exampleNotes,
  settleAndCheck,
  target,
  type Result,
  type RunEnv,
  type Scenario,
} from '../scenario.js';
import type { EnqueueItem } from '../../src/index.js';

const SETTLE_MS = 120_000;
const LIMITS = { total: 10, perKey: 2 };
const THROTTLE = { limit: 200, perMs: 1000, burst: 20 };
/** Half the jobs on a few hot keys (perKey binds there), the rest spread over many. */
const HOT_KEYS = 10;
const KEYS = 300;

interface Run {
  id: string;
  key: string;
  from: number;
  to: number;
}

/** Each claim's run (K to its ending write's `sent`; to the kill for a killed holder). */
function runs(lines: OracleLine[], keyOf: Map<string, string>, kills: Map<number, number>): Run[] {
  const ends = new Map<string, number>();
  for (const l of lines)
    if (l.kind === 'C' || l.kind === 'F') ends.set(l.f[1]!, writeTimes(l).sent);
    else if (l.kind === 'R') ends.set(l.f[1]!, -1);
  const out: Run[] = [];
  for (const l of lines) {
    if (l.kind !== 'K') continue;
    const [id, token, pid, at] = [l.f[0]!, l.f[1]!, Number(l.f[2]), Number(l.f[3])];
    const end = ends.get(token);
    const to = end === undefined ? (kills.get(pid) ?? at) : end < 0 ? at : end;
    out.push({ id, key: keyOf.get(id) ?? '-', from: at, to: Math.max(at, to) });
  }
  return out;
}

/** The most runs of `rs` overlapping at any moment, and when. */
function peak(rs: Run[]): { most: number; at: number } {
  // Ends sort before starts at the same ms: a slot freed and taken in one ms is not two holders.
  const ev = rs.flatMap((r) => [
    [r.from, 1],
    [r.to, -1],
  ]);
  ev.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let now = 0;
  let most = 0;
  let at = 0;
  for (const [t, d] of ev) {
    now += d!;
    if (now > most) [most, at] = [now, t!];
  }
  return { most, at };
}

/** The most claims (K lines) in any window of `ms`. */
function mostClaimsIn(rs: Run[], ms: number): number {
  const ts = rs.map((r) => r.from).sort((a, b) => a - b);
  let best = 0;
  for (let lo = 0, hi = 0; hi < ts.length; hi++) {
    while (ts[hi]! - ts[lo]! >= ms) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

export const t18: Scenario = {
  id: 'T18',
  title: 'SIGKILL of supervisors under concurrency limits and a throttle',
  quick: true,
  async run(env: RunEnv): Promise<Result[]> {
    const jobs = env.quick ? 2000 : 6000;
    const killEveryMs = 1000;
    const startedAt = Date.now();
    const cluster = await Cluster.start(env.worker);
    let ok = false;
    try {
      await cluster.client.setQueueLimits(QUEUE, { concurrency: LIMITS, rateLimit: THROTTLE });
      // 3 processes of 8: 24 slots against total 10, so the total binds, and the throttle too.
      const spawn = () => cluster.spawnWorker({ concurrency: 8 });
      await Promise.all([0, 1, 2].map(spawn));
      const rand = rng(env.seed + 18);
      const keyOf = new Map<string, string>();
      const items: EnqueueItem[] = [];
      for (let i = 0; i < jobs; i++) {
        const key = rand() < 0.5 ? `hot${i % HOT_KEYS}` : `k${Math.floor(rand() * KEYS)}`;
        items.push({
          machine: 'simple',
          input: { ms: 10 + Math.floor(rand() * 70) },
          options: { concurrencyKey: key, idempotencyKey: `t18-${env.seed}-${i}` },
        });
      }
      for (let i = 0; i < items.length; i += 500) {
        const ids = await cluster.enqueue(items.slice(i, i + 500));
        ids.forEach((id, j) => keyOf.set(id, items[i + j]!.options!.concurrencyKey!));
      }

      // A random worker (never the last) every ~killEveryMs until the queue drains, each
      // replaced at once.
      const kills = new Map<number, number>();
      const killer = new WorkerKiller(cluster, rand, spawn);
      for (;;) {
        await sleep(killEveryMs * (0.5 + rand()));
        const c = await cluster.store.counts(QUEUE);
        if (c.queued + c.delayed < LIMITS.total * 5) break;
        const k = killer.killOne();
        if (k) kills.set(k.pid, k.at);
      }
      await killer.replaced();
      const { figures: f, settled, lines } = await settleAndCheck(cluster, SETTLE_MS);

      // Slots: none left held or set aside once everything settled.
      const flow = await cluster.store.queueFlow(QUEUE);
      const busyKeys = flow.keys.filter((k) => k.running + k.waiting > 0);
      let heldSets = 0;
      let cursor = '0';
      do {
        const [next, keys] = await cluster.store.redis.scan(
          cursor,
          'MATCH',
          `${cluster.prefix}:{${QUEUE}}:ck*`,
        );
        cursor = next;
        for (const k of keys) {
          const n = k.includes(':ckwait:')
            ? await cluster.store.redis.zcard(k)
            : await cluster.store.redis.scard(k);
          if (n > 0 && !k.endsWith(':ckkeys')) heldSets++;
        }
      } while (cursor !== '0');

      // Every job a killed holder held was claimed again: its slot came back. One not claimed
      // again is done when the holder's own done landed around the kill (a SIGKILL takes effect
      // a moment after it is sent; the C line follows the reply): that done freed its slot.
      const back: number[] = [];
      let landed = 0;
      let notBack = 0;
      for (const [pid, at] of kills)
        for (const h of heldAt(lines, pid, at)) {
          const again = claimedAgain(lines, h.id, pid, at);
          if (again !== undefined) back.push(again - at);
          else if ((await cluster.store.getJob(h.id, QUEUE))?.status === 'done') landed++;
          else notBack++;
        }

      // The limits while running.
      const all = runs(lines, keyOf, kills);
      const total = peak(all);
      const byKey = new Map<string, Run[]>();
      for (const r of all) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r]);
      let worstKey = { key: '-', most: 0 };
      for (const [key, rs] of byKey) {
        const p = peak(rs);
        if (p.most > worstKey.most) worstKey = { key, most: p.most };
      }
      const claimsPeak = mostClaimsIn(all, THROTTLE.perMs);

      const targets = [
        target('all work settled', settled, settled ? 'yes' : `not within ${SETTLE_MS} ms`),
        ...contractTargets(f, cluster.unexpectedExits),
        target('0 unexplained duplicates', f.unexplained === 0, f.unexplained),
        target(
          'no slot leaked: queue flow shows 0 running and 0 set aside, every ck:<key>/ckwait:<key> empty',
          flow.running === 0 && busyKeys.length === 0 && heldSets === 0,
          `running ${flow.running}, keys busy ${busyKeys.length}, non-empty ck sets ${heldSets}`,
        ),
        target(
          'every job a killed holder held was claimed again (its slot returned after the lease)',
          notBack === 0,
          `${back.length} of ${back.length + landed + notBack} (${landed} done by the holder's own write around the kill); kill to next claim p50 ${percentile(back, 50)} ms, max ${back.length ? Math.max(...back) : 0} ms`,
        ),
        target(
          `running never above total ${LIMITS.total}`,
          total.most <= LIMITS.total,
          `most at once ${total.most} over ${all.length} runs`,
        ),
        target(
          `running per key never above perKey ${LIMITS.perKey}`,
          worstKey.most <= LIMITS.perKey,
          `most at once ${worstKey.most} (key ${worstKey.key}) over ${byKey.size} keys`,
        ),
      ];
      ok = targets.every((t) => t.ok);
      return [
        {
          id: 'T18',
          title: this.title,
          procedure:
            `${jobs} simple jobs (10-80 ms) with concurrency keys (half on ${HOT_KEYS} hot keys, half ` +
            `over ${KEYS}), queue limits total ${LIMITS.total}, perKey ${LIMITS.perKey} and a throttle ` +
            `${THROTTLE.limit}/${THROTTLE.perMs} ms burst ${THROTTLE.burst}, on 3 worker processes x ` +
            `concurrency 8; about every ${killEveryMs / 1000} s a random worker is SIGKILLed (never ` +
            `the last) and a new one started, until the queue drains: ${kills.size} kills. Runs are ` +
            `each claim to its ending write from the oracle (a killed holder's up to its kill).`,
          targets,
          figures: f,
          notes: [
            ...exampleNotes(f),
            `most claims in any ${THROTTLE.perMs} ms (K lines, read after the claim): ${claimsPeak} (throttle ${THROTTLE.limit} + ${THROTTLE.burst})`,
          ],
          seconds: (Date.now() - startedAt) / 1000,
          kept: ok ? undefined : cluster.dir,
        },
      ];
    } finally {
      await cluster.close(!ok || env.keep);
    }
  },
};
