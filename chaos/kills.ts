// Killing worker processes while a test runs (T1, T17, T18): a running worker picked at random,
// never the last one, SIGKILLed, written to the oracle as a fault, and a replacement started at
// once (it joins when ready). One place, so every scenario kills the same way.

import type { Cluster, WorkerHandle } from './cluster.js';

/** The workers that are ready, not signalled by the test, and alive. */
export function readyWorkers(cluster: Cluster): WorkerHandle[] {
  return [...cluster.workers.values()].filter((w) => w.workerId && !w.signalled && w.proc.alive());
}

export class WorkerKiller {
  private readonly respawns: Promise<unknown>[] = [];

  constructor(
    private readonly cluster: Cluster,
    private readonly rand: () => number,
    /** Starts a replacement (default: a worker with the cluster's defaults). */
    private readonly spawn: () => Promise<WorkerHandle> = () => cluster.spawnWorker(),
  ) {}

  /**
   * SIGKILLs a random ready worker and starts its replacement; undefined (nothing done) when
   * fewer than two are ready. Never the last one: the reaper and the schedule loop run in the
   * workers, so with none left nobody would recover, and recovery times would measure process
   * start-up instead.
   */
  killOne(): { pid: number; at: number } | undefined {
    const live = readyWorkers(this.cluster);
    if (live.length < 2) return undefined;
    const w = live[Math.floor(this.rand() * live.length)]!;
    const at = Date.now();
    this.cluster.signal(w, 'SIGKILL');
    this.cluster.fault('sigkill', w.pid, at, at);
    // A replacement that fails to start is no result of the test: the crash count says so.
    this.respawns.push(this.spawn().catch(() => undefined));
    return { pid: w.pid, at };
  }

  /** Resolves once every replacement started so far is ready (or failed to start). */
  async replaced(): Promise<void> {
    await Promise.all(this.respawns);
  }
}
