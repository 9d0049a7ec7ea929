// Follows a pipeline's actor tree for the XState driver (xstateDriver.ts): persistence follows
// the root and every machine actor below it. The root's own subscription does not fire when only
// a child machine changes (XState v5), so each one found in the tree is subscribed as well. (An
// `inspect` observer would see them all, but makes XState build an inspection event for every
// microstep and action: ~11 us of a 3-step job.)
//
// XState reports a throw from an observer with a bare `throw` in a timer, which would kill the
// worker: every observer here catches everything and fails this job instead.

import type { AnyActor, AnyActorRef } from 'xstate';
import { isMachineLogic } from './parkable.js';
import type { ResumePoint } from './resumePoint.js';
import { eventInProcess, type ActorRejections } from './machineFault.js';
import type { RunControl } from './machineDriver.js';

type TreeSnapshot = { children?: Record<string, AnyActorRef | undefined> };

export class ActorTreeWatch {
  /** The child machines subscribed (made at the first: most runs have none). */
  private watched: Set<object> | undefined;

  constructor(
    private readonly run: Omit<RunControl, 'timerDue'>,
    /** What a retry resumes from if the machine errors: the tree as it last ran. */
    private readonly resume: ResumePoint,
    /** What its invoked actors rejected with: not the machine's own code. */
    private readonly rejections: ActorRejections,
  ) {}

  /** Subscribes the root (before it starts): each settled macrostep marks the run dirty. */
  watchRoot(root: AnyActor): void {
    const { run, resume } = this;
    // An actor that errors swaps its mailbox for a new one before telling its observers: the
    // one it was processing the event from is this one (machineFault.ts eventInProcess).
    const mailbox = (root as unknown as { mailbox?: unknown }).mailbox;
    root.subscribe({
      next: (snap) => {
        try {
          resume.noteMachine(root, snap);
          if (snap.status === 'active') run.entered(JSON.stringify(snap.value), snap.context);
          this.watchChildren(snap as TreeSnapshot);
          run.markDirty();
        } catch (err) {
          run.settle({ kind: 'error', error: err });
        }
      },
      complete: () => run.settle({ kind: 'done' }),
      error: (error) => run.settle({ kind: 'error', error, event: eventInProcess(mailbox) ?? 'xstate.init' }),
    });
  }

  /** The root started: notes it and the children it started with. */
  started(root: AnyActor): void {
    this.resume.noteMachine(root, root.getSnapshot());
    this.watchChildren(root.getSnapshot() as TreeSnapshot);
  }

  private watchChildren(snapshot: TreeSnapshot): void {
    const { run, resume } = this;
    for (const child of Object.values(snapshot.children ?? {})) {
      if (!child) continue;
      if (!isMachineLogic((child as { logic?: unknown }).logic)) {
        resume.noteActor(child);
        this.rejections.note(child);
        continue;
      }
      const watched = (this.watched ??= new Set());
      if (watched.has(child)) continue;
      watched.add(child);
      resume.noteMachine(child, child.getSnapshot() as { status?: string });
      child.subscribe({
        next: (snap) => {
          try {
            resume.noteMachine(child, snap as { status?: string });
            this.watchChildren(snap as TreeSnapshot);
            run.markDirty();
          } catch (err) {
            run.settle({ kind: 'error', error: err });
          }
        },
        error: () => {}, // the parent gets the error as an event
      });
      this.watchChildren(child.getSnapshot() as TreeSnapshot);
    }
  }
}
