// One test's world on a MemoryStore (no server): what Harness (harness.ts) is on Redis, with the
// same fast timing profile (storeWorld.ts), for suites that run on both stores.

import { MemoryStore, type MemoryStoreOptions } from '../../src/store/memory/MemoryStore.js';
import { StoreWorld } from './storeWorld.js';

export class MemoryHarness extends StoreWorld<MemoryStore> {
  constructor(storeOptions: MemoryStoreOptions = {}) {
    super(new MemoryStore(storeOptions));
  }

  async close(): Promise<void> {
    await this.stopAll();
    await this.store.close();
  }
}
