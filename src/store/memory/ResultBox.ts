// Final records pushed for the watchers that wait on jobs (Client.waitForResult), as Redis's
// `result:<watcherId>` lists: a watcher's records wait for it RESULT_TTL_MS after the last push,
// and a blocked read wakes at the next push.

import type { JobRecord } from '../types.js';
import { Bell } from './signals.js';
import { RESULT_TTL_MS } from '../storeConstants.js';

export class ResultBox {
  private readonly bell = new Bell();
  private readonly lists = new Map<string, { records: JobRecord[]; expiresAt: number }>();

  constructor(private readonly clock: () => number) {}

  /** Gives `record` to each of `watchers` of a job on `queue`, at `now` (the store's clock). */
  push(queue: string, watchers: readonly string[], record: JobRecord, now: number): void {
    for (const watcher of watchers) {
      const key = `${queue}\n${watcher}`;
      const list = this.lists.get(key) ?? { records: [], expiresAt: 0 };
      list.records.push(record);
      list.expiresAt = now + RESULT_TTL_MS;
      this.lists.set(key, list);
    }
    this.bell.ring();
  }

  /** Takes the watcher's records, waiting up to `blockMs` for one; [] when none came or `closed()`. */
  async take(queue: string, watcherId: string, blockMs: number, closed: () => boolean): Promise<JobRecord[]> {
    const key = `${queue}\n${watcherId}`;
    const until = performance.now() + blockMs;
    for (;;) {
      const list = this.lists.get(key);
      if (list && list.expiresAt <= this.clock()) this.lists.delete(key);
      else if (list && list.records.length > 0) {
        this.lists.delete(key);
        return list.records;
      }
      const left = until - performance.now();
      if (left <= 0 || closed()) return [];
      await this.bell.wait(left);
    }
  }

  /** Wakes every blocked read (the store closes). */
  wakeAll(): void {
    this.bell.ring();
  }
}
