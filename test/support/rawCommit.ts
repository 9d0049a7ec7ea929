// One commit-12.lua call with ops already on the wire (values as encodeOps.ts or a test writes
// them), no claim: for tests that send a form the store's own encoder would not pick.

import { commitKeys } from '../../src/store/redis/commitOps.js';
import type { Harness } from './harness.js';

/** What each of the call's `nOps` ops wrote (1 written, 0 refused), from the script's reply. */
export async function rawCommit(h: Harness, wire: (string | number)[], nOps: number): Promise<number[]> {
  const k = h.store.keys('default');
  const args = [k.base, 100, 60_000, '', 0, 0, '', 0, 0, 0, ...wire];
  const store = h.store as unknown as {
    run(n: string, k: string[], a: unknown[]): Promise<[number[] | number]>;
  };
  const [written] = await store.run('commit', commitKeys(k), args);
  // Every op written: the reply is their count (commit-12.lua), else a value per op.
  return typeof written === 'number' ? Array.from({ length: nOps }, () => 1) : written;
}
