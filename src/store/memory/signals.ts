// What RedisStore's blocking reads and pub/sub do, in one process: a queue's work marker (one
// idle supervisor woken per signal, as BZPOPMIN wakes one blocked client), a bell that wakes
// every blocked reader (event stream, result lists), and control messages to one worker.

import type { QueuesWaiter, WorkWaiter } from '../types.js';

/** A queue's marker: a wake-up waits here until one waiter takes it. */
export class WorkMarker {
  private pending = false;
  private readonly waiting: (() => void)[] = [];

  /** Wakes one idle waiter, or leaves the signal for the next wait. */
  ring(): void {
    const w = this.waiting.shift();
    if (w) w();
    else this.pending = true;
  }

  /** Takes a signal left for the next wait, if there is one. */
  take(): boolean {
    const had = this.pending;
    this.pending = false;
    return had;
  }

  /** Calls `woken` at the next ring (once, unless removed first); returns the remover. */
  listen(woken: () => void): () => void {
    this.waiting.push(woken);
    return () => {
      const i = this.waiting.indexOf(woken);
      if (i >= 0) this.waiting.splice(i, 1);
    };
  }

  waiter(): WorkWaiter {
    let closed = false;
    let current: (() => void) | undefined;
    return {
      wait: (timeoutMs) => {
        if (closed) return Promise.resolve();
        if (this.pending) {
          this.pending = false;
          return Promise.resolve();
        }
        return new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            const i = this.waiting.indexOf(done);
            if (i >= 0) this.waiting.splice(i, 1);
            current = undefined;
            resolve();
          };
          const timer = setTimeout(done, Math.max(1, timeoutMs));
          current = done;
          this.waiting.push(done);
        });
      },
      close: () => {
        closed = true;
        current?.();
      },
    };
  }
}

/**
 * One supervisor's wait on several queues' markers (RedisQueuesWaiter's BZPOPMIN over them): the
 * first ring of any wakes it, and a signal left on a marker is taken at once.
 */
export function queuesWaiter(marker: (queue: string) => WorkMarker): QueuesWaiter {
  let closed = false;
  let cut: (() => void) | undefined;
  return {
    wait: (queues, timeoutMs) => {
      if (closed) return Promise.resolve([]);
      const signalled = queues.filter((q) => marker(q).take());
      if (signalled.length > 0) return Promise.resolve(signalled);
      return new Promise<string[]>((resolve) => {
        const removers: (() => void)[] = [];
        const done = (got: string[]) => {
          clearTimeout(timer);
          for (const r of removers) r();
          cut = undefined;
          resolve(got);
        };
        const timer = setTimeout(() => done([]), Math.max(1, timeoutMs));
        cut = () => done([]);
        for (const q of queues) removers.push(marker(q).listen(() => done([q])));
      });
    },
    interrupt: () => cut?.(),
    putBack: (queue) => marker(queue).ring(),
    close: () => {
      closed = true;
      cut?.();
    },
  };
}

/** Wakes every reader blocked on it (new stream entries, a result pushed). */
export class Bell {
  private readonly waiting = new Set<() => void>();

  ring(): void {
    for (const w of [...this.waiting]) w();
  }

  /** Resolves at the next ring, or after `ms`. */
  wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, ms));
      this.waiting.add(done);
    });
  }
}

/** Control messages (cancel, event, fanin) to one worker, delivered after the write that sent them. */
export class ControlBus {
  private readonly listeners = new Map<string, Set<(message: string) => void>>();

  subscribe(queue: string, workerId: string, listener: (message: string) => void): () => void {
    const key = `${queue}\n${workerId}`;
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(key);
    };
  }

  publish(queue: string, workerId: string, message: string): void {
    const set = this.listeners.get(`${queue}\n${workerId}`);
    if (!set) return;
    setImmediate(() => {
      for (const l of set) l(message);
    });
  }
}
