// One test's world on a MemoryStore (no server): what Harness (harness.ts) is on Redis, with the
// same fast timing profile, for suites that run on both stores.

import { pino } from 'pino';
import { Client, Supervisor } from '../../src/index.js';
import type { ClientOptions, SupervisorOptions } from '../../src/index.js';
import { MemoryStore, type MemoryStoreOptions } from '../../src/store/memory/MemoryStore.js';
import { FAST } from './harness.js';

export class MemoryHarness {
  readonly store: MemoryStore;
  private readonly supervisors: Supervisor[] = [];
  private readonly clients: Client[] = [];

  constructor(storeOptions: MemoryStoreOptions = {}) {
    this.store = new MemoryStore(storeOptions);
  }

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

  async close(): Promise<void> {
    await Promise.all(this.supervisors.map((s) => s.stop({ graceMs: 0 }).catch(() => undefined)));
    for (const c of this.clients) c.close();
    await this.store.close();
  }
}
