// The wait for work of one supervisor, shared by its lanes (one lane per queue served): the
// lanes whose queue is empty wait here, and ONE store waiter (one blocking connection, however
// many queues: WorkQueue.workWaiter) blocks on all of their queues' markers at once.
//
// Invariants:
//   NO LOST WAKE-UP  a signal the store waiter took for a queue whose lane stopped waiting
//                    meanwhile (kicked to flush a write, or its own due timer ended its wait:
//                    a wait is left, its block runs on) is put back on the queue's marker
//                    (QueuesWaiter.putBack) at once: the store's marker was taken for it, so
//                    nobody else would report that work. Kept here instead, it was stranded
//                    while that lane did not wait again (a lone queue waits only while a slot is
//                    free): a job due for an idle supervisor waited out its idle wait (~5 s).
//                    Put back, the next waiter on that queue takes it, that lane or another
//                    supervisor's. Costs a ZADD only when a marker was taken for nobody.
//   FRESH SET        a lane that starts waiting while a block is in flight over a set without
//                    its queue interrupts that block, which starts again over the new set.
//   SIGNAL AFTER KICK  a signal handed over while a kick was settling a lane's IDLE wait (`idle`;
//                    a run's end kicks right after the commit that parked it: on a cluster the
//                    marker that park set is often taken already, so its signal comes within the
//                    same few microtasks) is that wait's too: the marker was taken for it and
//                    nobody else will report that work. Returned as a look again; dropped, the
//                    queue slept out idleWaitMs with a parked job due (the wake once took 5 s).

import type { QueuesWaiter } from '../store/types.js';

export class WorkSignals {
  /** The lanes waiting now: their queue -> what to tell them (true: signalled). */
  private readonly waiting = new Map<string, (signalled: boolean) => void>();
  /** The queues the block in flight covers (undefined: none in flight). */
  private blocking: ReadonlySet<string> | undefined;
  private loop: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly waiter: QueuesWaiter,
    /** The longest single block (a lane's own timer bounds its wait; this bounds the loop's). */
    private readonly maxBlockMs: number,
  ) {}

  /**
   * Resolves true when `queue` may have work; false when the wait was left (`leave`) or closed.
   * One wait per queue at a time (a lane waits once at a time).
   */
  wait(queue: string): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      this.waiting.set(queue, resolve);
      if (!this.loop) this.loop = this.run();
      else if (this.blocking && !this.blocking.has(queue)) this.waiter.interrupt();
    });
  }

  /** The lane of `queue` stops waiting (its wait resolves false). */
  leave(queue: string): void {
    const w = this.waiting.get(queue);
    this.waiting.delete(queue);
    w?.(false);
  }

  /**
   * A lane's IDLE wait (CommitPump.ts): until `queue` is signalled or `timeoutMs` have passed
   * (true: look again), or `kicked` resolves first (false: a write queued, or slots or turns
   * changed). A signal that arrives after that is put back (NO LOST WAKE-UP); one handed over
   * with the kick is this wait's (SIGNAL AFTER KICK).
   */
  async idle(queue: string, timeoutMs: number, kicked: Promise<false>): Promise<boolean> {
    // A timer of our own bounds the sleep: a job due in 10 ms MUST NOT wait out idleWaitMs.
    let timer: NodeJS.Timeout | undefined;
    const due = new Promise<boolean>((r) => (timer = setTimeout(() => r(true), timeoutMs)));
    const signalled = this.wait(queue);
    const lookAgain = await Promise.race([signalled, kicked, due]);
    clearTimeout(timer);
    // Settles `signalled` (false) if it is still waiting; one handed over already stays true.
    this.leave(queue);
    return lookAgain || (await signalled);
  }

  close(): void {
    this.closed = true;
    this.waiter.close();
    for (const q of [...this.waiting.keys()]) this.leave(q);
  }

  private async run(): Promise<void> {
    while (!this.closed && this.waiting.size > 0) {
      const queues = [...this.waiting.keys()];
      this.blocking = new Set(queues);
      // A store waiter reports its own errors as a wait that found nothing (and paces itself).
      const got = await this.waiter.wait(queues, this.maxBlockMs).catch((): string[] => []);
      this.blocking = undefined;
      for (const q of got) {
        const w = this.waiting.get(q);
        this.waiting.delete(q);
        if (w) w(true);
        else this.waiter.putBack(q);
      }
    }
    this.loop = undefined;
  }
}
