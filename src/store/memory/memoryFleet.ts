// MemoryStore's Fleet role (roles/Fleet.ts), as lua/announce-2.lua and fleetOps.ts on Redis: a
// supervisor's announce, and the fleet read back with each queue's reaped jobs. Neither is kept
// in the data file: after a restart the fleet is who announces next.

import { fleetView } from '../fleetView.js';
import type { FleetWorker, WorkerFacts } from '../roles/Fleet.js';
import { FLEET_GONE_KEPT_MS } from '../storeConstants.js';
import type { MemoryCore } from './MemoryCore.js';

export function announce(core: MemoryCore, facts: WorkerFacts): Promise<void> {
  return core.op(() => {
    for (const [w, seen] of core.fleet)
      if (seen.seenAt < core.opNow - FLEET_GONE_KEPT_MS) core.fleet.delete(w);
    core.fleet.set(facts.workerId, { facts: structuredClone(facts), seenAt: core.opNow });
  }, false);
}

export function workers(core: MemoryCore): Promise<FleetWorker[]> {
  return core.op(() => {
    const reaped = [...core.queueData.values()].flatMap((q) => q.reaped);
    return fleetView([...core.fleet.values()], reaped, core.opNow);
  }, false);
}
