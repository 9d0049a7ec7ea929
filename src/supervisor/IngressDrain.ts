// A supervisor's ingress loop (docs/ingress.md): moves what foreign producers LPUSH onto the
// queue's ingress list into jobs, in batches, each batch one atomic store call.
//
// Modes:
//   WAITING   the list is empty: one blocking command on a connection of its own returns when an
//             entry arrives (Store.ingressWaiter), or after WAIT_MS: an empty list costs one
//             command per WAIT_MS and no polling.
//   DRAINING  entries are there: batches of BATCH until a batch comes back short.
//   STOPPED   stop() cuts the wait short; a batch in flight is finished (it is one atomic call:
//             cut or not, no entry is lost or made twice).
// Nothing here may throw out of the loop: an error is logged, and the loop goes on after a pause.

import type { Logger } from 'pino';
import type { Registry } from '../runtime/registry.js';
import { hasIngress, type Store, type WorkWaiter } from '../store/types.js';
import { parseIngressEntry } from './parseIngressEntry.js';

/** Entries per atomic call: 100 keeps one call's Lua time around a millisecond for small entries. */
const BATCH = 100;
/** Longest blocking wait: a bound, so a connection that died silently is noticed. */
const WAIT_MS = 30_000;
const ERROR_PAUSE_MS = 1_000;

export interface IngressDrainOptions {
  store: Store;
  queue: string;
  registry: Registry;
  maxPayloadBytes: number;
  /** The partition count of the queue `queue` is (or is a partition of), read at each start. */
  partitions: () => number;
  log: Logger;
}

export class IngressDrain {
  private waiter: WorkWaiter | undefined;
  private loop: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly o: IngressDrainOptions) {}

  /** Whether the store has an ingress at all (a MemoryStore has none). */
  get supported(): boolean {
    return hasIngress(this.o.store);
  }

  start(): void {
    const { store } = this.o;
    if (!hasIngress(store) || this.loop) return;
    this.stopped = false;
    this.waiter = store.ingressWaiter(this.o.queue);
    this.loop = this.run();
  }

  /** Ends the loop; resolves when a batch in flight has been answered (at most 5 s). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.waiter?.close();
    const loop = this.loop;
    this.loop = undefined;
    if (loop) await Promise.race([loop, new Promise((r) => setTimeout(r, 5_000).unref())]);
  }

  /** One batch now (tests, and the loop). Resolves with how many entries it took. */
  async drainOnce(): Promise<number> {
    const { store, queue, registry, maxPayloadBytes, log } = this.o;
    if (!hasIngress(store)) return 0;
    const partitions = this.o.partitions();
    const r = await store.drainIngress(queue, BATCH, (raw) =>
      parseIngressEntry(raw, registry, { queue, maxPayloadBytes, partitions }),
    );
    if (r.broken > 0) log.warn({ queue, broken: r.broken }, 'ingress entries set aside as broken');
    if (r.contended) return BATCH; // others are draining: look again at once
    return r.made + r.broken + r.existing;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let taken: number;
      try {
        taken = await this.drainOnce();
      } catch (err) {
        this.o.log.error({ err, queue: this.o.queue }, 'ingress drain failed; trying again');
        await new Promise((r) => setTimeout(r, ERROR_PAUSE_MS));
        continue;
      }
      if (taken >= BATCH) {
        await new Promise((r) => setImmediate(r));
        continue;
      }
      await this.waiter!.wait(WAIT_MS);
    }
  }
}
