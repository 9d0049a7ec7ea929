// The runner every conformance case file uses: `test(name, fn, options)` runs `fn` on a fresh
// store from the backend's factory and closes the store, passed or not.

import { it } from 'node:test';
import type { Store } from '../../../src/store/types.js';
import type { StoreFactory, StoreOptions } from './storeFactory.js';

export type StoreTest = (name: string, fn: (store: Store) => Promise<void>, options?: StoreOptions) => void;

export function storeTest(factory: StoreFactory): StoreTest {
  return (name, fn, options) =>
    void it(name, async () => {
      const store = await factory.make(options);
      try {
        await fn(store);
      } finally {
        await store.close();
      }
    });
}
