// Durability 'replicated': a commit whose WAIT came back short (CommitResult.unreplicated) is
// written all the same (its jobs go on), but a failover before a replica catches up could lose
// it. Logged like an outage: one warning when commits start coming back short, one info line
// when a commit is acknowledged by its replicas again, with the count between (the store counts
// them for the metrics: RedisStore.replicaShortfalls).

import type { Logger } from 'pino';

export class ReplicaLagLog {
  private since = 0;
  private commits = 0;

  constructor(private readonly log: Logger) {}

  /** One commit's answer: short (`unreplicated` set) or acknowledged by its replicas. */
  observe(unreplicated: { acked: number; wanted: number } | undefined): void {
    if (unreplicated) {
      this.commits++;
      if (this.since !== 0) return;
      this.since = Date.now();
      this.log.warn(
        unreplicated,
        `commits are written but ${unreplicated.acked} of ${unreplicated.wanted} replica(s) acknowledged them ` +
          'in time: a failover now could lose them (durability replicated)',
      );
    } else if (this.since !== 0) {
      const lagMs = Date.now() - this.since;
      this.log.info({ lagMs, commits: this.commits }, `replicas acknowledge commits again after ${lagMs} ms`);
      this.since = 0;
      this.commits = 0;
    }
  }
}
