// One attempt as the metrics see it: its duration and ending (machinist_jobs_total,
// machinist_job_duration_seconds), and the states its machine passes through
// (machinist_state_transitions_total, machinist_state_dwell_seconds). Dwell is measured within
// the attempt: from when this worker saw the state entered (or resumed the job in it) to when
// the machine left it; a state the attempt parks or stops in is not observed (its stay goes on).

import type { Counter, Histogram } from 'prom-client';
import type { AttemptEnd, AttemptInfo, AttemptWatch } from '../runtime/JobObserver.js';
import type { AnyDefinition } from '../runtime/registry.js';
import { machineLabel, stateLabel } from '../runtime/stateLabels.js';

export interface AttemptSeries {
  jobs: Counter<'queue' | 'machine' | 'status'>;
  jobDuration: Histogram<'queue' | 'machine' | 'status'>;
  transitions: Counter<'machine' | 'from' | 'to'>;
  dwell: Histogram<'machine' | 'state'>;
}

export class AttemptMetrics implements AttemptWatch {
  private readonly startedAt = performance.now();
  private readonly machine: string;
  private readonly queue: string;
  private readonly def: AnyDefinition | undefined;
  private current: string | undefined;
  private enteredAt = this.startedAt;

  constructor(
    private readonly series: AttemptSeries,
    info: AttemptInfo,
  ) {
    this.def = info.definition;
    this.machine = machineLabel(info.definition);
    this.queue = info.queue;
    // A simple job starts in its lifecycle status; a pipeline reports its first state.
    if (info.definition?.kind === 'job') this.current = info.status === 'loading' ? 'loading' : 'working';
  }

  state(valueText: string): void {
    this.moveTo(stateLabel(this.def, valueText), performance.now());
  }

  end(how: AttemptEnd, finalState?: string): void {
    const now = performance.now();
    const labels = { queue: this.queue, machine: this.machine, status: how };
    this.series.jobs.inc(labels);
    this.series.jobDuration.observe(labels, (now - this.startedAt) / 1000);
    // Endings that leave the machine's state: into its final state, or out of the machine.
    if (how === 'done') {
      const final = finalState !== undefined && this.def?.kind === 'pipeline' ? finalState : '"done"';
      this.moveTo(stateLabel(this.def, final), now);
    } else if (how === 'failed' || how === 'cancelled') this.moveTo(how, now);
  }

  private moveTo(label: string, now: number): void {
    const from = this.current;
    if (label === from) return;
    if (from !== undefined) {
      this.series.transitions.inc({ machine: this.machine, from, to: label });
      this.series.dwell.observe({ machine: this.machine, state: from }, (now - this.enteredAt) / 1000);
    }
    this.current = label;
    this.enteredAt = now;
  }
}
