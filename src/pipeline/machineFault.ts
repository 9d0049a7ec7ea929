// Which of a pipeline machine's errors is its own code's (MachineActionError: fails the job at
// once) and which is an invoked actor's rejection no `onError` took (the retry policy decides).
// The rule and why it is the rule are in docs/concepts.md ("Errors in a pipeline's machine").
// XState errors the machine with the same value in both cases, so the XState runtime tells them
// apart by where the value came from: the errors its invoked actors (promise, callback,
// observable: anything not a machine) rejected with are noted as they happen; an error the
// machine ends with that no such actor raised was thrown by the machine's own code.

import type { AnyActorRef } from 'xstate';
import { MachineActionError, MachinistError } from '../errors.js';

export class ActorRejections {
  // Made when first needed (most resumes invoke nothing); plain sets, as long-lived as the run.
  private seen: Set<AnyActorRef> | undefined;
  /** The values invoked actors rejected with (by identity; a primitive by value). */
  private errors: Set<unknown> | undefined;

  /** An invoked actor that is not a machine: its rejection, if it comes, is noted. */
  note(ref: AnyActorRef): void {
    const seen = (this.seen ??= new Set());
    if (seen.has(ref)) return;
    seen.add(ref);
    // XState tells an actor's observers of its error before it relays the error to its parent.
    ref.subscribe({ error: (err: unknown) => void (this.errors ??= new Set()).add(err) });
  }

  has(err: unknown): boolean {
    return this.errors?.has(err) ?? false;
  }
}

/** The state as the record and errors name it: a string value as is, a nested one as JSON. */
export function stateName(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The job's error for a machine that errored with `err` while taking `event` in `state`:
 * MachineActionError when its own code threw, `err` itself when an invoked actor rejected with it
 * or when it is one of Machinist's own (already typed, with its own retry rule).
 */
export function machineFault(
  err: unknown,
  fromActor: boolean,
  ids: { jobId: string; machine: string; state: string; event: string },
): unknown {
  if (fromActor || err instanceof MachinistError) return err;
  return new MachineActionError(ids, err);
}

/** The type of the event an XState actor's `mailbox` is processing now (XState keeps it at the
 * head of the mailbox while its transition runs: xstateCompat.ts checks the field is there). */
export function eventInProcess(mailbox: unknown): string | undefined {
  const type = (mailbox as { _current?: { value?: { type?: unknown } } | null } | undefined)?._current?.value
    ?.type;
  return typeof type === 'string' ? type : undefined;
}
