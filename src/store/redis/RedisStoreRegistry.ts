// RedisStore's Registry role (roles/Registry.ts): the machines supervisors publish, the set of
// queues, their partition counts and their job counts; and the Fleet role (roles/Fleet.ts), the
// supervisors that serve them. Between RedisStoreBase (connections,
// settings, format check) and RedisStore (the other roles).

import { assertQueueName, partitionsKey, queuesKey, registryKey } from '../keys.js';
import type { MachineInfo, Registry } from '../types.js';
import { RedisStoreBase } from './RedisStoreBase.js';
import * as listJobs from './listJobs.js';
import type { QueueCounts } from './listJobs.js';
import * as registryOps from './registryOps.js';
import * as idempotencyOps from './idempotencyOps.js';
import { restampFormat } from './formatOps.js';
import * as fleetOps from './fleetOps.js';
import { storedQueues } from '../partitions.js';
import type { Fleet, FleetWorker, WorkerFacts } from '../roles/Fleet.js';

export class RedisStoreRegistry extends RedisStoreBase implements Registry, Fleet {
  async registerMachines(
    machines: MachineInfo[],
    options: { replaceFingerprints?: boolean } = {},
  ): Promise<void> {
    // A write that makes a store populated: a fresh one is stamped first (no-op once checked).
    await this.checkFormat();
    return registryOps.registerMachines(
      this.ctx,
      registryKey(this.prefix),
      machines,
      options.replaceFingerprints,
    );
  }

  async countUnfinished(machine: string, version: number): Promise<number> {
    let n = 0;
    for (const queue of await this.queues())
      n += await listJobs.countUnfinished(this.ctx, queue, machine, version);
    return n;
  }

  /** A supervisor's queue, at start and at each registry refresh (which restores the stamp too). */
  async registerQueue(queue: string): Promise<void> {
    assertQueueName(queue);
    await this.checkFormat();
    await registryOps.registerQueue(this.ctx, queuesKey(this.prefix), queue);
    await restampFormat(this.redis, this.prefix);
  }

  machines(): Promise<MachineInfo[]> {
    return this.calls.call('machines', (c) => registryOps.machines(c, registryKey(this.prefix)));
  }

  queues(): Promise<string[]> {
    return this.calls.call('queues', (c) => registryOps.queues(c));
  }

  partitions(queue: string): Promise<number> {
    assertQueueName(queue);
    return this.calls.call('partitions', (c) => registryOps.partitions(c, queue), { ids: { queue } });
  }

  async setPartitions(queue: string, partitions: number): Promise<void> {
    assertQueueName(queue);
    await this.calls.call(
      'setPartitions',
      (c) => c.redis.hset(partitionsKey(this.prefix), queue, partitions),
      {
        ids: { queue },
      },
    );
  }

  copyIdempotencyKeys(queue: string, to: (key: string) => string): Promise<number> {
    assertQueueName(queue);
    return this.calls.call('copyIdempotencyKeys', (c) => idempotencyOps.copyIdempotencyKeys(c, queue, to), {
      ids: { queue },
    });
  }

  async forgetQueue(queue: string): Promise<void> {
    this.knownQueues.delete(queue);
    await this.redis.srem(queuesKey(this.prefix), queue);
  }

  /**
   * How many jobs each index of a queue holds (ZCARD of each, one round trip). `active` holds
   * loading and working jobs; `queued` counts only jobs due now, `delayed` the ones waiting.
   * @example const { queued, active, dead } = await store.counts('default');
   */
  counts(queue: string): Promise<QueueCounts> {
    return this.calls.call('counts', (c) => listJobs.counts(c, queue), { ids: { queue } });
  }

  /** Fleet: a supervisor's facts at each heartbeat (a supervisor's call: not bounded). */
  announce(facts: WorkerFacts): Promise<void> {
    return fleetOps.announce(this.ctx, facts);
  }

  workers(): Promise<FleetWorker[]> {
    return this.calls.call('workers', async (c) => fleetOps.workers(c, await storedQueues(this)));
  }
}
