// Client.cancel's walk down a cancelled job's fan-out children, and theirs.

import type { Store } from '../store/types.js';

const PAGE = 500;

/**
 * Cancels every descendant of a job, depth first. Each cancel is atomic; the walk is not, but
 * it converges: a child claimed meanwhile sees its parent cancelled and ends without running.
 */
export async function cancelDescendants(store: Store, parentId: string): Promise<void> {
  for (const queue of await store.queues()) {
    for (let offset = 0; ; offset += PAGE) {
      const ids = await store.childIds(parentId, queue, offset, PAGE);
      const outcomes = await Promise.all(
        ids.map((child) => store.cancel(child, queue, 'parent cancelled').catch(() => null)),
      );
      for (const [i, o] of outcomes.entries()) if (o?.hasChildren) await cancelDescendants(store, ids[i]!);
      if (ids.length < PAGE) break;
    }
  }
}
