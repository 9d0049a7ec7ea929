// A supervisor's place in the fleet (roles/Fleet.ts): at start and at every heartbeat interval it
// announces its facts (host, pid, version, queues, concurrency, the jobs it runs now); at a clean
// stop it announces `stopped`. A supervisor that stops announcing for `goneAfterMs` (killed, cut
// off from Redis) is shown as gone, with the jobs the reaper took back from it. An announce that
// fails is logged once per outage and never touches the jobs: the fleet is for people to look at,
// the leases (LeaseKeeper.ts) are what keeps jobs safe.

import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { hasFleet, type WorkerFacts } from '../store/types.js';
import type { Store } from '../store/types.js';
import { RUNNING_LISTED } from '../store/roles/Fleet.js';
import { packageVersion } from '../runtime/packageVersion.js';
import { OutageLog } from './OutageLog.js';

export interface FleetPresenceOptions {
  store: Store;
  workerId: string;
  queues: readonly string[];
  concurrency: number;
  heartbeatMs: number;
  log: Logger;
  /** The jobs running now, over every lane. */
  running(): WorkerFacts['running'];
}

/** Missed announces before a supervisor is gone; never under GONE_FLOOR_MS (a busy event loop). */
const MISSED = 3;
const GONE_FLOOR_MS = 2000;

export class FleetPresence {
  private timer: NodeJS.Timeout | undefined;
  private readonly outage: OutageLog;
  private readonly startedAt = Date.now();
  private inFlight: Promise<void> | undefined;

  constructor(private readonly o: FleetPresenceOptions) {
    this.outage = new OutageLog(o.log, 'fleet announces');
  }

  start(): void {
    if (!hasFleet(this.o.store)) return;
    void this.announce(false);
    this.timer = setInterval(() => void this.announce(false), this.o.heartbeatMs);
    this.timer.unref();
  }

  /** Says the supervisor stopped cleanly (after its jobs ended or were requeued). */
  async stop(): Promise<void> {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.inFlight;
    await this.announce(true);
  }

  facts(stopped: boolean): WorkerFacts {
    const running = this.o.running();
    return {
      workerId: this.o.workerId,
      host: hostname(),
      pid: process.pid,
      version: packageVersion(),
      queues: [...this.o.queues],
      concurrency: this.o.concurrency,
      runningCount: running.length,
      running: running.slice(0, RUNNING_LISTED),
      startedAt: this.startedAt,
      goneAfterMs: Math.max(MISSED * this.o.heartbeatMs, GONE_FLOOR_MS),
      ...(stopped ? { stopped: true } : {}),
    };
  }

  /** One announce at a time: those that pile up behind an outage are dropped, not queued. */
  private announce(stopped: boolean): Promise<void> {
    const store = this.o.store;
    if (!hasFleet(store) || (this.inFlight && !stopped)) return this.inFlight ?? Promise.resolve();
    this.inFlight = store
      .announce(this.facts(stopped))
      .then(
        () => this.outage.recovered(),
        (err: unknown) => this.outage.failed(err),
      )
      .finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }
}
