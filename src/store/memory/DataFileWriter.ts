// Keeps MemoryStore's data file (snapshotFile.ts) up to date: a change schedules one write at
// most `flushMs` later, writes never overlap, and a write that fails leaves the store marked
// changed so that the next change (or close) writes again. What a crash can lose is the changes
// of the last `flushMs`.

import { writeDataFile, writeDataFileSync } from './snapshotFile.js';

export class DataFileWriter {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly flushMs: number,
    /** The store's whole state as the file's text. */
    private readonly encode: () => string,
  ) {}

  /** The store changed: write within `flushMs`. */
  changed(): void {
    if (this.closed) return;
    this.dirty = true;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush().catch(() => {
        // Kept dirty: the next change (or close) writes again.
        this.dirty = true;
      });
    }, this.flushMs);
  }

  /** Writes now, when something changed (after a write under way). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing) await this.writing;
    if (!this.dirty) return;
    this.dirty = false;
    this.writing = writeDataFile(this.file, this.encode()).finally(() => (this.writing = undefined));
    await this.writing;
  }

  /** The last write, then no more. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    clearTimeout(this.timer);
  }

  /** The last write, blocking: for a process that exits without awaiting close(). */
  flushSync(): void {
    if (!this.dirty) return;
    this.dirty = false;
    writeDataFileSync(this.file, this.encode());
  }
}
