// What a supervisor checks of Redis before it starts: an evicting maxmemory-policy loses jobs
// (refused, unless accepted), and appendonly off loses the jobs written since the last
// snapshot when Redis restarts (warned: the registry repairs itself, the lost jobs do not).
// A store with durability 'replicated' and fewer replicas connected than it waits for is
// refused: every commit would wait out its WAIT timeout and every enqueue fail.

import type { Logger } from 'pino';
import { hasServerChecks, type Store } from '../store/types.js';
import { MachinistError } from '../errors.js';
import { CODE } from '../errorCodes.js';

export async function checkRedisSettings(
  store: Store,
  log: Logger,
  options: { allowEviction: boolean; queue: string },
): Promise<void> {
  const checks = hasServerChecks(store);
  const policy = checks ? await store.evictionPolicy() : null;
  if (policy === null) log.warn('cannot read Redis maxmemory-policy; make sure it is noeviction');
  else if (policy !== 'noeviction' && !options.allowEviction) {
    throw new MachinistError(
      CODE.EVICTING_REDIS,
      `Redis maxmemory-policy is '${policy}': it may evict job records, and an evicted job is lost. ` +
        "Set it to 'noeviction' (or pass allowEviction: true to accept the risk).",
      { queue: options.queue },
    );
  }
  const aof = checks ? await store.appendOnly() : null;
  if (aof === null) log.warn('cannot read Redis appendonly; make sure it is yes');
  else if (!aof)
    log.warn(
      "Redis appendonly is 'no': a Redis restart loses the jobs written since its last snapshot. " +
        'Set appendonly yes.',
    );
  await checkReplicas(store, log, options.queue);
}

/** The part of RedisStore the replica check reads (durability.ts). */
interface Replicated {
  readonly durability: { replicas: number; timeoutMs: number } | null;
  connectedReplicas(): Promise<number | null>;
}

async function checkReplicas(store: Store, log: Logger, queue: string): Promise<void> {
  const s = store as Partial<Replicated>;
  if (!s.durability || typeof s.connectedReplicas !== 'function') return;
  const wanted = s.durability.replicas;
  const connected = await s.connectedReplicas();
  if (connected === null)
    log.warn(`cannot read Redis INFO replication; make sure ${wanted} replica(s) are connected`);
  else if (connected < wanted)
    throw new MachinistError(
      CODE.NO_REPLICA,
      `durability 'replicated' waits for ${wanted} replica(s), but the Redis master has ${connected} connected: ` +
        'every commit would wait out its timeout. Connect a replica, or use durability: async.',
      { queue },
    );
}
