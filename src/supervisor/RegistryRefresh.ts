// Keeps a supervisor's machines in the registry and its queue in the queue set while it runs,
// and writes its definitions' queue limits to its queue (the store writes them only when the
// queue's limits were never set at run time, and only what differs: docs/flow-control.md).
// Both are global keys nothing else restores: after Redis loses data (FLUSHALL, a restart
// without AOF, a failover to a replica that lagged) clients without definitions would get
// UNKNOWN_MACHINE while workers still run. So they are written at start, again each time the
// store reconnects, and every `periodMs` (which also covers a loss without a reconnect, such as
// FLUSHALL). Each write is idempotent; at most one is in flight.

import type { Logger } from 'pino';
import { hasConnectionEvents, type MachineInfo, type QueueFlowChange, type Store } from '../store/types.js';

export class RegistryRefresh {
  private timer: NodeJS.Timeout | undefined;
  private offReconnect: (() => void) | undefined;
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly queue: string,
    private readonly machines: MachineInfo[],
    /** The definitions' queue limits (Registry.queueLimits); undefined: none declared. */
    private readonly limits: QueueFlowChange | undefined,
    private readonly periodMs: number,
    private readonly log: Logger,
  ) {}

  /** Registers once (errors reach the caller), then keeps registering until stop(). */
  async start(): Promise<void> {
    await this.register();
    if (hasConnectionEvents(this.store))
      this.offReconnect = this.store.onReconnect(() => this.refresh('reconnect'));
    this.timer = setInterval(() => this.refresh('period'), this.periodMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.offReconnect?.();
    this.offReconnect = undefined;
  }

  private async register(): Promise<void> {
    await this.store.registerMachines(this.machines);
    await this.store.registerQueue(this.queue);
    if (this.limits) await this.store.setQueueFlow(this.queue, this.limits);
  }

  /** Never throws: a failed refresh is logged and the next reconnect or period tries again. */
  private refresh(why: 'reconnect' | 'period'): void {
    // While Redis is down a command waits for the reconnect: one waiting write is enough.
    if (this.inFlight) return;
    this.inFlight = this.register()
      .catch((err: unknown) => this.log.warn({ err, why }, 'registry refresh failed'))
      .finally(() => (this.inFlight = undefined));
  }
}
