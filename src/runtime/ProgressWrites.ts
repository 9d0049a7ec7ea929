// A running job's progress reports (ActiveJob.progress), coalesced into writes: the first is
// written at once, later ones at most every PROGRESS_EVERY_MS, the last value reported in a window
// being the one written. Made by the job at its first report, so a job that reports none (most)
// carries nothing of it.

import type { CommitOp } from '../store/types.js';

const PROGRESS_EVERY_MS = 200;

/** What a progress write needs of its job (ActiveJob; not imported: it imports this). */
export interface ProgressJob {
  readonly id: string;
  readonly token: string;
  /** The lifecycle status last written (what a progress checkpoint keeps). */
  readonly status: 'loading' | 'working';
  /** A pipeline run: the audit entries it holds back go ahead of the progress entry (JobRun). */
  readonly pipeline: { takeHeld(): string[] } | undefined;
  write(op: CommitOp): Promise<boolean>;
}

export class ProgressWrites {
  /** The last report not yet written (JSON). */
  private value: string | undefined;
  /** Cancels the write waiting (a timer, or the first report's immediate). */
  private timer: (() => void) | undefined;
  private lastAt = -Infinity;
  private ended = false;

  constructor(private readonly job: ProgressJob) {}

  /** A report (`text`: its value as stored JSON): written at once, or when its window ends. */
  report(text: string): void {
    this.value = text;
    if (this.timer) return;
    const wait = Math.max(0, this.lastAt + PROGRESS_EVERY_MS - performance.now());
    if (wait > 0) {
      const t = setTimeout(() => this.flush(), wait).unref();
      this.timer = () => clearTimeout(t);
    } else {
      // At once, but behind the checkpoint of the state this step runs in: both runtimes write
      // it at an immediate queued around the step's start (before it, or just after it starts
      // the step). Two immediates deep runs after every immediate queued now; a timer instead
      // could fire before that checkpoint or after it, logging the progress ahead of its state
      // on one runtime and not the other (seen on MemoryStore, where no I/O orders them).
      let i = setImmediate(() => {
        i = setImmediate(() => this.flush()).unref();
      }).unref();
      this.timer = () => clearImmediate(i);
    }
  }

  /** No more writes (ActiveJob.end); a report still waiting for its window is written first when `flush`. */
  end(flush: boolean): void {
    this.timer?.();
    if (flush) this.flush();
    this.ended = true;
  }

  private flush(): void {
    this.timer = undefined;
    const p = this.value;
    if (this.ended || p === undefined) return;
    this.value = undefined;
    this.lastAt = performance.now();
    const entry = `{"type":"progress","progress":${p}}`;
    const held = this.job.pipeline?.takeHeld();
    void this.job.write({
      kind: 'checkpoint',
      id: this.job.id,
      token: this.job.token,
      status: this.job.status,
      progress: p,
      log: held?.length ? [...held, entry] : [entry],
    });
  }
}
