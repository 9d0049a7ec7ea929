// The XState internals the pipeline runtime relies on, checked on a tiny actor before a
// supervisor runs pipelines. Machinist reads fields XState does not promise to keep: the
// system's scheduled events and its scheduler (timers.ts: durable `after` delays), an actor's
// `_parent` (jobScope.ts: invoke paths) and `logic` (parkable.ts), its `mailbox._current` (the
// event in process, named by a MachineActionError: machineFault.ts), and the layout of a persisted
// snapshot, which the compiled runner writes itself (runCompiledPipeline.ts). On an XState whose
// internals moved these would not fail loudly: timers would be lost or misfire and snapshots
// would not restore. So Supervisor.start() refuses (XSTATE_UNSUPPORTED, naming the installed
// version) instead, once per process.

import { createRequire } from 'node:module';
import { createActor, fromPromise, setup, type AnyActor } from 'xstate';
import { MachinistError } from '../errors.js';
import { CODE } from '../errorCodes.js';

/** The xstate versions Machinist is tested on: package.json's peerDependencies.xstate. */
export const TESTED_XSTATE = '~5.33.3';

const PROBE_DELAY_MS = 3_600_000;

/**
 * A started actor using each construct whose internals are read: a delayed transition, an
 * invoked promise (its persisted form is what the compiled runner writes) and an invoked
 * machine. Its clock sets no real timer, so a probe left running never holds the process.
 */
export function startProbe(): AnyActor {
  const clock = { setTimeout: () => 0, clearTimeout: () => undefined };
  return createActor(probeMachine(), { clock }).start();
}

function probeMachine() {
  return setup({
    actors: {
      pending: fromPromise<never, number>(() => new Promise<never>(() => {})),
      child: setup({}).createMachine({}),
    },
  }).createMachine({
    initial: 'a',
    states: {
      a: {
        invoke: [
          { id: 'step', src: 'pending', input: 1 },
          { id: 'child', src: 'child' },
        ],
        after: { [PROBE_DELAY_MS]: 'b' },
      },
      b: {},
    },
  });
}

interface ProbedSystem {
  getSnapshot?: () => { _scheduledEvents?: Record<string, Record<string, unknown>> } | undefined;
  scheduler?: { schedule?: unknown; cancel?: unknown };
}

/** What is missing or moved on `actor` (a startProbe() actor); null when all is there. */
function problem(actor: AnyActor): string | null {
  const system = actor.system as unknown as ProbedSystem;
  const events = system.getSnapshot?.()?._scheduledEvents;
  if (!events || typeof events !== 'object') return 'the actor system has no _scheduledEvents';
  const scheduled = Object.values(events);
  if (scheduled.length !== 1) return `the actor system lists ${scheduled.length} _scheduledEvents, not 1`;
  const s = scheduled[0]!;
  const fields: [string, boolean][] = [
    ['source', s.source === actor],
    ['target', s.target === actor],
    ['event', typeof (s.event as { type?: unknown } | undefined)?.type === 'string'],
    ['delay', s.delay === PROBE_DELAY_MS],
    ['id', typeof s.id === 'string'],
    ['startedAt', typeof s.startedAt === 'number'],
  ];
  const bad = fields.filter(([, ok]) => !ok).map(([f]) => f);
  if (bad.length > 0) return `a scheduled event's ${bad.join(', ')} is not as expected`;

  const scheduler = system.scheduler;
  if (typeof scheduler?.schedule !== 'function' || typeof scheduler.cancel !== 'function')
    return 'the actor system has no scheduler.schedule/cancel';
  // Restoring a timer schedules it again under its id (timers.ts): it must be listed after.
  (scheduler.schedule as (...a: unknown[]) => void)(actor, actor, { type: 'probe' }, PROBE_DELAY_MS, 'probe');
  const rescheduled = Object.values(system.getSnapshot?.()?._scheduledEvents ?? {}).some(
    (e) => e.id === 'probe',
  );
  (scheduler.cancel as (...a: unknown[]) => void)(actor, 'probe');
  if (!rescheduled) return 'scheduler.schedule does not list the event in _scheduledEvents';

  const mailbox = (actor as unknown as { mailbox?: object }).mailbox;
  if (!mailbox || !('_current' in mailbox)) return 'an actor has no mailbox._current';

  const children = (actor.getSnapshot() as { children?: Record<string, AnyActor | undefined> }).children;
  for (const id of ['step', 'child']) {
    const child = children?.[id] as { _parent?: unknown; logic?: unknown } | undefined;
    if (child?._parent !== actor) return `the invoked actor '${id}' has no _parent`;
    if (!child.logic || typeof child.logic !== 'object') return `the invoked actor '${id}' has no logic`;
  }

  // As stored (JSON): the compiled runner writes this text for a machine in a step state.
  const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as {
    children?: Record<string, unknown>;
  };
  delete persisted.children?.child;
  const expected = {
    status: 'active',
    value: 'a',
    historyValue: {},
    context: {},
    children: { step: { snapshot: { status: 'active', input: 1 }, src: 'pending', syncSnapshot: false } },
  };
  if (JSON.stringify(persisted) !== JSON.stringify(expected))
    return 'the persisted snapshot is not laid out as the compiled runner writes it';
  return null;
}

/**
 * Throws XSTATE_UNSUPPORTED when `actor` (a startProbe() actor) lacks the internals the
 * pipeline runtime reads; `version` is the installed xstate's, for the message.
 */
export function checkXstateInternals(actor: AnyActor, version: string): void {
  let why: string | null;
  try {
    why = problem(actor);
  } catch (err) {
    why = `reading its internals threw: ${message(err)}`;
  }
  if (why !== null) throw unsupported(version, why);
}

function unsupported(version: string, why: string): MachinistError {
  return new MachinistError(
    CODE.XSTATE_UNSUPPORTED,
    `xstate ${version} is not supported by Machinist's pipelines (tested on xstate ${TESTED_XSTATE}): ` +
      `${why}. Install a version in that range.`,
  );
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function installedXstateVersion(): string {
  try {
    return (
      (createRequire(import.meta.url)('xstate/package.json') as { version?: string }).version ?? 'unknown'
    );
  } catch {
    return 'unknown';
  }
}

let verdict: { error: unknown } | undefined;

/** Checks the installed xstate once per process (the first call's verdict is kept). */
export function assertXstateSupported(): void {
  if (!verdict) {
    const version = installedXstateVersion();
    let actor: AnyActor | undefined;
    try {
      actor = startProbe();
      checkXstateInternals(actor, version);
      verdict = { error: undefined };
    } catch (err) {
      verdict = {
        error:
          err instanceof MachinistError ? err : unsupported(version, `a probe actor threw: ${message(err)}`),
      };
    } finally {
      try {
        actor?.stop();
      } catch {
        // The verdict is what matters, and the probe's clock holds no timer.
      }
    }
  }
  if (verdict.error !== undefined) throw verdict.error;
}
