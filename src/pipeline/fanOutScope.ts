// A pipeline run's side of its fan-outs (fanOutRuntime.ts does the work): the host each fan-out
// runs against, the fan-in notices the supervisor passes on (job.onFanIn), and the count of
// fan-outs whose children are not yet durably enqueued. While any is, the run MUST NOT park: if
// the worker died after parking, nothing would ever wake the parent.

import type { ActiveJob } from '../runtime/ActiveJob.js';
import type { AttemptHost } from '../runtime/AttemptHost.js';
import { runFanOut, type FanOutHost } from './fanOutRuntime.js';

export class FanOutScope {
  /** Fan-outs still setting up (their children not yet enqueued). */
  setups = 0;
  private readonly waiters: (() => void)[] = [];
  private pending: boolean;
  /** Made at the first fan-out: most runs (every resume of a timer) never fan out. */
  private fanHost: FanOutHost | undefined;

  /** `moved`: a fan-out finished setting up (the run may park now). */
  constructor(
    private readonly job: ActiveJob,
    private readonly attemptHost: AttemptHost,
    private readonly moved: () => void,
  ) {
    this.pending = job.fanInSignal;
    job.onFanIn = this.notice;
  }

  private get host(): FanOutHost {
    if (this.fanHost) return this.fanHost;
    const { job, attemptHost } = this;
    const id = job.id;
    return (this.fanHost = {
      queue: attemptHost.queue,
      parentId: id,
      fanOpen: (group, total, policy) => attemptHost.fanOpen(id, job.token, group, total, policy),
      enqueueChildren: (group, jobs, revive) =>
        attemptHost.enqueueChildren(id, job.token, group, jobs, revive, job.traceContext()),
      cancelJob: (childId, queue) => attemptHost.cancelTree(childId, queue),
      nextFanIn: (signal) => this.nextFanIn(signal),
    });
  }

  /** A fan-out of this run's machine (JobScope.fanOut). */
  readonly fanOut = async (group: string, input: unknown, signal: AbortSignal): Promise<unknown[]> => {
    this.setups++;
    let settingUp = true;
    const setupDone = () => {
      if (!settingUp) return;
      settingUp = false;
      this.setups--;
      this.moved();
    };
    try {
      return await runFanOut(
        {
          ...this.host,
          nextFanIn: (sig) => {
            setupDone();
            return this.host.nextFanIn(sig);
          },
        },
        group,
        input,
        signal,
      );
    } finally {
      setupDone();
    }
  };

  /** The run ended: no more notices. */
  detach(): void {
    this.job.onFanIn = undefined;
  }

  private readonly notice = (): void => {
    const waiters = this.waiters.splice(0);
    if (waiters.length === 0) this.pending = true;
    for (const w of waiters) w();
  };

  private nextFanIn(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      if (this.pending) {
        // The notice came before anyone waited for it: it counts now.
        this.pending = false;
        return resolve();
      }
      this.waiters.push(resolve);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }
}
