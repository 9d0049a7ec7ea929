// The fleet as the Fleet role answers it, for both stores: each supervisor's last announce
// turned into live / stopped / gone by the store's clock, with the jobs the reaper took back from
// it. The stores only read their records (redis/fleetOps.ts, memory/memoryFleet.ts).

import type { FleetWorker, ReapedJob, WorkerFacts } from './roles/Fleet.js';

export interface Seen {
  facts: WorkerFacts;
  seenAt: number;
}

/** A reaped job as a queue keeps it: the worker whose lease passed, and what became of the job. */
export interface ReapedEntry extends ReapedJob {
  workerId: string;
}

export function fleetView(seen: Seen[], reaped: ReapedEntry[], now: number): FleetWorker[] {
  const byWorker = new Map<string, ReapedJob[]>();
  for (const { workerId, ...job } of reaped) {
    const list = byWorker.get(workerId) ?? [];
    list.push(job);
    byWorker.set(workerId, list);
  }
  const rank = { live: 0, stopped: 1, gone: 2 } as const;
  return seen
    .map(({ facts, seenAt }): FleetWorker => {
      const age = Math.max(0, now - seenAt);
      const status = facts.stopped ? 'stopped' : age > facts.goneAfterMs ? 'gone' : 'live';
      const jobs = (byWorker.get(facts.workerId) ?? []).sort((a, b) => b.at - a.at);
      return { ...facts, status, seenAt, heartbeatAgeMs: age, reaped: jobs };
    })
    .sort((a, b) => rank[a.status] - rank[b.status] || a.workerId.localeCompare(b.workerId));
}
