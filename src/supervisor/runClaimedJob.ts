// Starts one claimed job: picks its definition (a fresh job runs on the newest version; one
// with a snapshot needs its own version or a newer one that can migrate it), sets aside what
// cannot run (broken: no machine, unknown machine or version, undecodable input), ends a child
// whose parent was cancelled without running it, sets aside input no Client would have enqueued
// (over maxPayloadBytes, nested too deep), then hands the job to its runner. Every path
// ends the job with a write: a runner that throws fails the job rather than leave it leased.

import { decodeValue } from '../store/valueCodec.js';
import type { Logger } from 'pino';
import type { ActiveJob } from '../runtime/ActiveJob.js';
import type { AttemptHost } from '../runtime/AttemptHost.js';
import type { AnyDefinition, Registry } from '../runtime/registry.js';
import type { ClaimedJob, Store } from '../store/types.js';
import { toStoredError } from '../errors.js';
import { FINISHED } from '../store/types.js';
import { MAX_INPUT_DEPTH, jsonBytesOver, jsonNestsDeeper } from '../runtime/inputLimits.js';
import { CODE, type ErrorCode } from '../errorCodes.js';

/** What starting a job needs of its supervisor. */
export interface ClaimContext {
  readonly queue: string;
  readonly registry: Registry;
  readonly store: Pick<Store, 'jobStatus'>;
  readonly log: Logger;
  readonly attemptHost: AttemptHost;
  /** Largest input this worker runs (bytes, UTF-8); larger is set aside as INPUT_TOO_LARGE. */
  readonly maxPayloadBytes: number;
  /** A running child whose parent is on another queue: its ending is relayed from the outbox. */
  noteCrossQueueChild(id: string): void;
}

/**
 * Not an async function: a held job (THE EARLY LEASE) waits in its run for minutes, and an async
 * frame suspended at its `await` was ~0.4 KB of the ~6 KB a held job kept (its generator, its
 * register file, its promise); the runner's promise is passed on instead. The checks that must
 * ask the store (a child's parent) still await, in their own function. What throws rejects.
 */
export function runClaimedJob(sup: ClaimContext, job: ActiveJob): Promise<void> {
  try {
    const c = job.claimed;
    if (!c.machine) return setAside(job, CODE.BROKEN_RECORD, 'job record has no machine name').then(ended);
    const malformed = recordProblem(c);
    if (malformed) return setAside(job, CODE.BROKEN_RECORD, malformed).then(ended);
    const def = definitionFor(sup.registry, c.machine, c);
    if (!def) {
      const known = sup.registry.has(c.machine);
      return setAside(
        job,
        known ? CODE.UNKNOWN_VERSION : CODE.UNKNOWN_MACHINE,
        known
          ? `machine '${c.machine}' version ${c.version} is not registered on this supervisor (and the job has a snapshot from that version)`
          : `no machine named '${c.machine}' is registered on the supervisor for queue '${sup.queue}'`,
      ).then(ended);
    }
    return c.parentId ? runChild(sup, job, def, c.parentId) : runAttempt(sup, job, def);
  } catch (err) {
    return Promise.reject(err);
  }
}

/** What a write's answer becomes once the run no longer needs it. */
const ended = (): void => {};

async function runChild(
  sup: ClaimContext,
  job: ActiveJob,
  def: AnyDefinition,
  parentId: string,
): Promise<void> {
  if (await endedUnderGoneParent(sup, job, parentId)) return;
  await runAttempt(sup, job, def);
}

/** Refuses input no Client would have sent, decodes it, and runs the attempt. */
function runAttempt(sup: ClaimContext, job: ActiveJob, def: AnyDefinition): Promise<void> {
  const c = job.claimed;
  const refused = inputRefusal(c, sup.maxPayloadBytes);
  if (refused) return setAside(job, refused.code, refused.message).then(ended);
  let input: unknown;
  let timeoutMs = def.timeoutMs;
  try {
    input = c.input === undefined ? undefined : decodeValue(c.input);
  } catch (err) {
    return setAside(job, CODE.UNDECODABLE, `job input is not valid JSON: ${(err as Error).message}`).then(
      ended,
    );
  }
  try {
    if (c.options) {
      const o = JSON.parse(c.options) as { timeoutMs?: number } | null;
      if (typeof o?.timeoutMs === 'number') timeoutMs = o.timeoutMs;
    }
  } catch (err) {
    return setAside(job, CODE.UNDECODABLE, `job options are not valid JSON: ${(err as Error).message}`).then(
      ended,
    );
  }
  // Armed at the start: an attempt that never reports anything stalls too.
  if (def.stallTimeoutMs !== undefined) job.armStall(def.stallTimeoutMs);
  let run: Promise<void>;
  try {
    // Each definition carries its runner (runSimpleJob, runPipeline): see runtime/AttemptHost.ts.
    run = def.runAttempt(job, input, timeoutMs, sup.attemptHost);
  } catch (err) {
    run = Promise.reject(err);
  }
  return run.then(undefined, (err: unknown) => {
    // A runner must end every job itself; if one throws, fail the job rather than leave it.
    sup.log.error({ err, jobId: c.id }, 'runner threw; failing the job');
    return job
      .write({
        kind: 'fail',
        id: c.id,
        token: c.token,
        error: JSON.stringify(toStoredError(err)),
        log: ['{"type":"failed","reason":"runner error"}'],
      })
      .then(ended);
  });
}

/** Ends a job that cannot run as broken, with `code` and `message`. */
function setAside(job: ActiveJob, code: ErrorCode, message: string): Promise<boolean> {
  return job.write({
    kind: 'broken',
    id: job.id,
    token: job.token,
    error: JSON.stringify({ name: 'BrokenJobError', code, message }),
    log: [JSON.stringify({ type: 'broken', code, message })],
  });
}

const isCount = (n: number) => Number.isInteger(n) && n >= 1;

/** A field enqueue always writes well, written badly: the record came from somewhere else. */
function recordProblem(c: ClaimedJob): string | undefined {
  // Checked without building a list of them: this runs for every job claimed.
  if (isCount(c.version) && isCount(c.attempt) && isCount(c.maxAttempts)) return undefined;
  for (const [what, value] of [
    ['version', c.version],
    ['attempt', c.attempt],
    ['max attempts', c.maxAttempts],
  ] as const) {
    if (!isCount(value)) return `job record's ${what} is not an integer >= 1 (${value})`;
  }
  return undefined;
}

/**
 * The definition the job runs on: a fresh job runs on the newest registered version; a job with
 * a snapshot needs its own version, or a newer one whose definition can migrate the snapshot.
 */
function definitionFor(registry: Registry, machine: string, c: ClaimedJob): AnyDefinition | undefined {
  const latest = registry.latest(machine);
  return (
    registry.get(machine, c.version) ??
    (!c.snapshot || (latest?.kind === 'pipeline' && latest.migrate && latest.version > c.version)
      ? latest
      : undefined)
  );
}

/**
 * A child whose parent was cancelled between its claim and its start ends cancelled without
 * running (README, Child jobs: cancelling a parent cancels its whole subtree): true when so.
 */
async function endedUnderGoneParent(sup: ClaimContext, job: ActiveJob, parentId: string): Promise<boolean> {
  const c = job.claimed;
  if (c.parentQueue) sup.noteCrossQueueChild(c.id);
  // The claim checked a parent on this queue already; one on another queue is asked here.
  const parent =
    c.parentState ??
    (await sup.store.jobStatus(parentId, c.parentQueue ?? sup.queue).then((p) =>
      // A finished parent (done, failed) awaits no child: as under a cancelled one.
      !p ? 'missing' : FINISHED.has(p.status) || p.cancelRequested ? 'cancelled' : 'live',
    ));
  if (parent !== 'live') {
    await job.write({
      kind: 'cancelled',
      id: c.id,
      token: c.token,
      log: [JSON.stringify({ type: 'cancelled', reason: `parent ${parent}` })],
    });
    return true;
  }
  return false;
}

/**
 * What no Client would have enqueued (inputLimits.ts): a foreign producer's record, set aside
 * unrun rather than run on input this deployment refuses everywhere else.
 */
function inputRefusal(
  { input, inputBytes }: Pick<ClaimedJob, 'input' | 'inputBytes'>,
  maxPayloadBytes: number,
): { code: ErrorCode; message: string } | undefined {
  // Withheld by the claim (ClaimRequest.maxInputBytes, this limit): its size alone came.
  const bytes = inputBytes ?? (input === undefined ? null : jsonBytesOver(input, maxPayloadBytes));
  if (bytes !== null)
    return {
      code: CODE.INPUT_TOO_LARGE,
      message: `job input is ${bytes} bytes, over the ${maxPayloadBytes}-byte limit (maxPayloadBytes)`,
    };
  if (input !== undefined && jsonNestsDeeper(input))
    return { code: CODE.INPUT_TOO_DEEP, message: `job input nests deeper than ${MAX_INPUT_DEPTH} levels` };
  return undefined;
}
