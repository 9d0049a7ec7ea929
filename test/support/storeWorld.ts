// What a test's world on any store has: supervisors (the fast timing profile) and clients made
// through it, all stopped by `stopAll`. Harness (Redis) and MemoryHarness build on it.

import { pino } from 'pino';
import { Client, Supervisor } from '../../src/index.js';
import type { ClientOptions, SupervisorOptions } from '../../src/index.js';
import type { Store } from '../../src/store/types.js';

/**
 * The tests' timing profile: lease 1 s, heartbeat 250 ms, reaper 200 ms. Short enough that a
 * dead worker's job is requeued within about 1.2 s, long enough that a live one on a loaded
 * 2-core machine keeps its lease.
 */
export const FAST = { leaseMs: 1000, heartbeatMs: 250, reaperIntervalMs: 200 } as const;

export class StoreWorld<S extends Store> {
  private readonly supervisors: Supervisor[] = [];
  private readonly clients: Client[] = [];

  constructor(readonly store: S) {}

  /** A supervisor with the fast timing profile, not yet started. */
  supervisor(options: Partial<SupervisorOptions> & Pick<SupervisorOptions, 'jobs'>): Supervisor {
    const logger = pino({ level: process.env.MACHINIST_LOG ?? 'silent' });
    const s = new Supervisor({ store: this.store, concurrency: 4, logger, ...FAST, ...options });
    this.supervisors.push(s);
    return s;
  }

  async started(options: Partial<SupervisorOptions> & Pick<SupervisorOptions, 'jobs'>): Promise<Supervisor> {
    const s = this.supervisor(options);
    await s.start();
    return s;
  }

  client(options: Partial<ClientOptions> = {}): Client {
    const c = new Client({ store: this.store, ...options });
    this.clients.push(c);
    return c;
  }

  /** Stops every supervisor and client made here (the stores are the caller's to close). */
  protected async stopAll(): Promise<void> {
    await Promise.all(this.supervisors.map((s) => s.stop({ graceMs: 0 }).catch(() => undefined)));
    for (const c of this.clients) c.close();
  }
}
