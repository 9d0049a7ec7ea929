// What a supervisor checks of Redis before it starts: an evicting maxmemory-policy loses jobs
// (refused, unless accepted), and appendonly off loses the jobs written since the last
// snapshot when Redis restarts (warned: the registry repairs itself, the lost jobs do not).

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
}
