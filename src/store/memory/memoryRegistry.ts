// MemoryStore's Registry role: machines (merged per version, as on Redis), the queue set, and
// the counts of each queue's indexes.

import { assertQueueName } from '../keys.js';
import { mergeMachine } from '../mergeMachine.js';
import { COUNTED, FINISHED, type MachineInfo, type QueueCounts } from '../types.js';
import type { MemoryCore } from './MemoryCore.js';

export function registerMachines(
  core: MemoryCore,
  machines: MachineInfo[],
  options: { replaceFingerprints?: boolean } = {},
): Promise<void> {
  return core.op(() => {
    for (const m of machines)
      core.machineRegistry.set(
        m.name,
        mergeMachine(core.machineRegistry.get(m.name), m, options.replaceFingerprints ?? false),
      );
  });
}

export function countUnfinished(core: MemoryCore, machine: string, version: number): Promise<number> {
  return core.op(() => {
    let n = 0;
    for (const name of core.queueSet) {
      const q = core.queueData.get(name);
      if (!q) continue;
      for (const j of q.jobs.values())
        if (!FINISHED.has(j.status) && j.machine === machine && j.version === version) n++;
    }
    return n;
  }, false);
}

export function registerQueue(core: MemoryCore, queue: string): Promise<void> {
  return core.op(() => {
    assertQueueName(queue);
    core.queueSet.add(queue);
  });
}

export function machines(core: MemoryCore): Promise<MachineInfo[]> {
  return core.op(() => [...core.machineRegistry.values()].map((m) => structuredClone(m)), false);
}

export function queues(core: MemoryCore): Promise<string[]> {
  return core.op(() => [...core.queueSet].sort(), false);
}

export function counts(core: MemoryCore, queue: string): Promise<QueueCounts> {
  return core.op(() => {
    const q = core.queue(queue);
    const out = Object.fromEntries(COUNTED.map((n) => [n, q.index[n].size])) as QueueCounts;
    // Jobs set aside in their key's line are queued, though in no index (FlowState.ts).
    for (const line of q.flow.waiting.values()) out.queued += line.size;
    for (const line of q.flow.gateLines.values()) out.queued += line.size;
    return out;
  }, false);
}

export function partitions(core: MemoryCore, queue: string): Promise<number> {
  return core.op(() => {
    assertQueueName(queue);
    return core.partitionCounts.get(queue) ?? 1;
  }, false);
}

export function setPartitions(core: MemoryCore, queue: string, n: number): Promise<void> {
  return core.op(() => {
    assertQueueName(queue);
    core.partitionCounts.set(queue, n);
  });
}

/** As on Redis (redis/idempotencyOps.ts): live keys, their expiry kept, never over one set. */
export function copyIdempotencyKeys(
  core: MemoryCore,
  queue: string,
  to: (key: string) => string,
): Promise<number> {
  return core.op(() => {
    assertQueueName(queue);
    let copied = 0;
    const now = core.ctx.now;
    for (const [key, entry] of core.queue(queue).idempotency) {
      if (entry.expiresAt <= now) continue;
      const target = core.queue(to(key)).idempotency;
      const held = target.get(key);
      if (held && held.expiresAt > now) continue;
      target.set(key, { ...entry });
      copied++;
    }
    return copied;
  });
}

export function forgetQueue(core: MemoryCore, queue: string): Promise<void> {
  return core.op(() => void core.queueSet.delete(queue));
}
