// Keeps MemoryStore's data file (snapshotFile.ts) up to date: a change schedules one write at
// most `flushMs` later, and writes never overlap. What a crash can lose is the changes of the
// last `flushMs`.
//
// A write that fails (the directory gone, the disk full) MUST NOT pass unnoticed: the store
// would go on acknowledging jobs it cannot keep. The writer keeps the failure (`failure`, which
// the store turns into refused writes and a 503 on /healthz), logs it once, and tries again
// every `retryMs` until a write succeeds; then the store takes writes again by itself.

import { DataFileUnwritableError } from '../../errors.js';
import { writeDataFile, writeDataFileSync } from './snapshotFile.js';

/** What the writer logs through: pino's (obj, msg) form, so a pino logger fits as it is. */
export interface DataFileLogger {
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export class DataFileWriter {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;
  private closed = false;
  /** The last write failed: the store takes no writes until one succeeds. */
  failure: DataFileUnwritableError | undefined;

  constructor(
    private readonly file: string,
    private readonly flushMs: number,
    /** The store's whole state as the file's text. */
    private readonly encode: () => string,
    private readonly logger: DataFileLogger,
    /** Told when a write succeeds after a failure. */
    private readonly onRecovered: () => void = () => {},
    /** How long after a failed write the next is tried. */
    private readonly retryMs = Math.max(flushMs, 250),
  ) {}

  /** The store changed: write within `flushMs`. */
  changed(): void {
    if (this.closed) return;
    this.dirty = true;
    this.schedule(this.flushMs);
  }

  private schedule(ms: number): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      // A failure is kept in `failure` and retried from flush(); nothing else to do here.
      this.flush().catch(() => {});
    }, ms);
  }

  /** Writes now, when something changed (after a write under way); rejects when it fails. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing) await this.writing;
    if (!this.dirty) return;
    this.dirty = false;
    this.writing = writeDataFile(this.file, this.encode()).finally(() => (this.writing = undefined));
    try {
      await this.writing;
    } catch (err) {
      this.failed(err);
      throw this.failure;
    }
    this.recovered();
  }

  private failed(err: unknown): void {
    this.dirty = true;
    if (!this.failure) {
      this.failure = new DataFileUnwritableError(this.file, err);
      this.logger.error(
        { err, file: this.file, retryMs: this.retryMs },
        `${this.failure.message}; writes are refused and the write is retried every ${this.retryMs} ms`,
      );
    }
    if (!this.closed) this.schedule(this.retryMs);
  }

  private recovered(): void {
    if (!this.failure) return;
    this.failure = undefined;
    this.onRecovered();
    this.logger.info(
      { file: this.file },
      `MemoryStore: the data file ${this.file} is written again; writes are taken`,
    );
  }

  /** The last write, then no more. */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      this.closed = true;
      clearTimeout(this.timer);
    }
  }

  /** The last write, blocking: for a process that exits without awaiting close(). */
  flushSync(): void {
    if (!this.dirty) return;
    this.dirty = false;
    writeDataFileSync(this.file, this.encode());
  }
}
