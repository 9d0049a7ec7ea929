// What the pipeline runtime core (pipelineRun.ts) drives: one way of running a job's machine.
// There are two: XState actors (xstateDriver.ts, any machine) and a compiled step table
// (runCompiledPipeline.ts, step-only machines). They differ only in how the machine takes a step and
// how its persisted snapshot is made; the inbox, checkpoints, held events, the timeout, parking
// and the run's ending belong to the core, the same for both.

import type { StoredTimer } from './timers.js';
import type { Offered } from './heldEvents.js';
import type { InboxEvent } from '../runtime/inboxEvent.js';

export type Outcome =
  | { kind: 'done' }
  /** `event`: the machine itself errored, taking that event (machineFault.ts). */
  | { kind: 'error'; error: unknown; event?: string }
  | { kind: 'park'; wakeAt: number | null }
  | { kind: 'aborted' };

/** What a driver may do to the run that drives it. */
export interface RunControl {
  /** The machine moved: one checkpoint is written at the end of this turn of the event loop. */
  markDirty(): void;
  /** The machine settled in a state (its value as JSON): logged as it is entered. */
  entered(stateText: string, context: unknown): void;
  /** An audit entry (JSON) for the next write. */
  log(entry: string): void;
  /** The run is over (the first call counts). */
  settle(outcome: Outcome): void;
  /** A timer the driver armed in memory fired (one `timerAt` named), told once its event is
   * taken, in the same turn: a held run's wait is over (ITS TIMER, heldRun.ts). */
  timerDue(): void;
}

/** A checkpoint's parts, each as its stored JSON. */
export interface CheckpointParts {
  w: string;
  t: string;
  state: string;
  context: unknown;
}

/** What a failed or aborted run stores of the machine (writePipelineFailure's `end`). */
export interface FailureParts {
  persisted: unknown;
  lastActive: unknown;
  timers: StoredTimer[];
  /** The state the run ended in (undefined: the one the last checkpoint stored). */
  value: unknown;
}

export interface MachineDriver {
  /** `<machine snapshot JSON>|<timers JSON>` of the claimed snapshot, to skip writing it again
   * ('': every first checkpoint is written). Asked for only when a checkpoint compares. */
  storedKey(): string;
  /** Makes (or restores) the machine, and logs `started` / `resumed`. May throw: the run fails. */
  open(run: RunControl): void;
  /**
   * Whether a restored timer will fire at once when started (its delay has passed): the run's
   * first checkpoint then waits for it, rather than store what was claimed a moment before it
   * moves. Asked after open(), before start().
   */
  timerDueAtStart(): boolean;
  /** Sets it running; from here on it reports through `run`. May throw: the run fails. */
  start(): void;
  /** 'active' while the machine runs, else its status ('done', 'error', ...). */
  status(): string;
  /** The machine's state value, as the log names it. */
  value(): unknown;
  /** Offers an event from the inbox (or held). */
  offer(msg: InboxEvent): Offered;
  /** The log entries for inbox events read once the machine stopped taking any (offerEvent.ts). */
  notOffered(texts: readonly string[]): string[];
  /**
   * AT START (pipelineRun.ts): true while a fresh run's machine is where its start put it, in its
   * initial state with that state's step running, no step settled and no event taken: its
   * checkpoint would store only what a fresh start makes again. Both drivers have it; one
   * without it would have every first checkpoint written at once.
   */
  atStart?(): boolean;
  /** The checkpoint of the machine now. A throw (a snapshot that cannot be stored) fails the job. */
  checkpoint(): CheckpointParts;
  /** When a machine that may park now wants waking (null: only by an event); undefined: it may not. */
  parkAt(): number | null | undefined;
  /**
   * The due time (Redis ms) of the timer the driver has armed in memory, which calls
   * RunControl.timerDue as it fires (undefined: none, or its timers do not tell): a held run
   * waiting for that time arms no timer of its own (ITS TIMER, heldRun.ts). Both drivers' timers
   * tell a run claimed held (the XState driver's through its actors' clock: heldClock.ts).
   */
  timerAt?(): number | undefined;
  /** Whether the machine's invoked actors (not its own code) rejected with `err`. */
  rejected(err: unknown): boolean;
  /** The run's outcome is known: stop reporting (before the ending is written). */
  halt(outcome: Outcome): void;
  /**
   * The final state's ending: the machine's output and snapshot (`text`: the snapshot's stored
   * text, when the driver makes it itself; else storedMachineJson of `persisted`).
   */
  done(): { output: unknown; persisted: unknown; value: unknown; text?: () => string };
  /** The park's stored parts. */
  park(): { w: string; t: string; state: string; value: unknown };
  /** What a failure stores; `thrown`: the job's error. */
  failure(outcome: Outcome, thrown: unknown): FailureParts;
  /** The ending is written: release what the machine holds. */
  stop(): void;
}
