// A supervisor's log of Redis outages: one warning when its connection becomes unreachable and
// one line when it is back, not one per failed call (the supervisor's calls wait an outage out:
// the store re-sends them when Redis is back). Returns the unsubscribe.

import type { Logger } from 'pino';
import { hasConnectionEvents, type Store } from '../store/types.js';

export function logConnectionChanges(store: Store, log: Logger): (() => void) | undefined {
  if (!hasConnectionEvents(store)) return undefined;
  return store.watchConnection((c) => {
    if (!c.up)
      log.warn(
        { address: c.address, err: c.error },
        `Redis at ${c.address} is unreachable; retrying until it is back`,
      );
    else
      log.info(
        { address: c.address, downMs: c.downMs },
        `Redis at ${c.address} is reachable again after ${c.downMs} ms`,
      );
  });
}
