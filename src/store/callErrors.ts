// The one place that decides what a failed store call means, for every store (Redis replies and
// ioredis's no-reply errors; a MemoryStore's unwritable data file), so the supervisor retries a
// store call without knowing which store it has. A failed Redis call: Redis (or the way to it) is not
// answering right now and the same call will work later ('transient'), or the call itself is
// what fails and sending it again fails again ('poison': a script's runtime error on these
// arguments, a WRONGTYPE inside a script, an exception thrown while encoding it).
//
// Why it matters: the pump splits a poison batch to find and drop the one bad write, which
// aborts that job's run. Treating a transient error that way drops good writes (issue 11,
// defect 5: every done write met during an OOM window was dropped and its job later requeued
// by the reaper). So anything not known to be the call's own fault is transient: retried, never
// dropped.

/**
 * Reply codes that mean "not now": memory full under noeviction (OOM), a long script running
 * (BUSY), a restart loading the data set (LOADING), a failover in progress (READONLY,
 * MASTERDOWN, NOREPLICAS), a failed background save refusing writes (MISCONF), a cluster
 * moving slots (TRYAGAIN, CLUSTERDOWN, MOVED, ASK), a blocked read cut short by a role change (UNBLOCKED);
 * and the server refusing this client rather than this call (NOAUTH, WRONGPASS, NOPERM: a
 * configuration to fix, after which the same call works).
 */
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  'OOM',
  'BUSY',
  'LOADING',
  'READONLY',
  'MISCONF',
  'TRYAGAIN',
  'CLUSTERDOWN',
  // A redirect that reached the caller (ioredis follows them, but not for a pipeline holding a
  // write besides the keyed one: durability.ts follows those a few times, then gives up here).
  'MOVED',
  'ASK',
  'MASTERDOWN',
  'NOREPLICAS',
  'UNBLOCKED',
  'NOAUTH',
  'WRONGPASS',
  'NOPERM',
]);

/**
 * A script call that did not run because the server lacks the Functions library (the store
 * loads it and resends: scriptCalls.ts; this is a call that still met its absence) or FCALL
 * itself (Redis < 7 under `scripts: 'functions'`, a configuration to fix).
 */
const NO_FUNCTION = /^ERR (Function not found|unknown command .fcall)/i;

/** ioredis's errors for a call that got no reply: no connection, or it went before the reply. */
const NO_REPLY =
  /^(Connection is closed|Stream isn't writeable|Command timed out|Socket timeout|connect ETIMEDOUT|Command aborted due to connection close)/;
/**
 * Of those, the ones whose command may have been sent (and applied) before the connection went
 * (the abort: a pipeline answered in part, e.g. a script answered and the WAIT behind it not).
 */
const LOST_IN_FLIGHT =
  /^(Connection is closed|Command timed out|Socket timeout|Command aborted due to connection close)/;
/**
 * A Cluster failing over: ioredis followed MOVED, CLUSTERDOWN or a lost connection until
 * maxRedirections and gave up (a plain Error naming the last one), or could not read the slot
 * map from any node (ClusterAllFailedError). Not now, rather than not this call.
 */
const CLUSTER_GAVE_UP = /^(Too many Cluster redirections|Failed to refresh slots cache)/;
/** Of those, the ones whose last try may have been applied (its connection went before the reply). */
const CLUSTER_LOST_IN_FLIGHT =
  /^Too many Cluster redirections\. Last error: Error: (Connection is closed|Command timed out|Socket timeout)/;

export type CallErrorKind = 'transient' | 'poison';

/**
 * The code of a Redis error reply: its first word. Redis 7 keeps the code of an error raised by
 * `redis.call` inside a script ("OOM command not allowed ... script: <sha>, on @user_script:12.");
 * Redis 6 wrapped it ("ERR Error running script (call to f_<sha>): @user_script:12:
 * @user_script: 12: -OOM command not allowed ..."), so the inner `-CODE` is looked for there.
 */
export function replyCode(message: string): string {
  const code = /^[A-Z]+/.exec(message)?.[0] ?? '';
  if (code === 'ERR' && message.startsWith('ERR Error running script')) {
    const inner = /: -([A-Z]+) /.exec(message)?.[1];
    if (inner) return inner;
  }
  return code;
}

/** What a rejected Redis call means: see the file header. */
export function callErrorKind(err: unknown): CallErrorKind {
  if (typeof err !== 'object' || err === null) return 'poison';
  const e = err as { name?: unknown; message?: unknown; code?: unknown; syscall?: unknown };
  const message = typeof e.message === 'string' ? e.message : '';
  if (e.name === 'ReplyError') {
    // A full server's "max number of clients reached" has no code of its own.
    if (
      TRANSIENT_CODES.has(replyCode(message)) ||
      message.includes('max number of clients') ||
      NO_FUNCTION.test(message)
    )
      return 'transient';
    return 'poison';
  }
  if (e.name === 'MaxRetriesPerRequestError' || e.code === 'REDIS_UNAVAILABLE') return 'transient';
  // A MemoryStore whose data file cannot be written takes writes again once it can.
  if (e.code === 'DATA_FILE_UNWRITABLE') return 'transient';
  // A socket error: ECONNREFUSED, ECONNRESET, EPIPE, ETIMEDOUT, ENOTFOUND, EAI_AGAIN, ...
  if (typeof e.syscall === 'string') return 'transient';
  if (NO_REPLY.test(message) || CLUSTER_GAVE_UP.test(message)) return 'transient';
  // Anything else was thrown on this side (a TypeError encoding an op, a JobNotFoundError): the
  // call's own.
  return 'poison';
}

/**
 * Whether a call that failed transiently may have been applied all the same: its command was
 * sent and the connection went before the reply came. A reply error was not applied (a script
 * validates before its first write, and Redis refuses OOM, READONLY, MISCONF at that first
 * write); a call refused before sending (no connection, ECONNREFUSED) was not either.
 */
export function mayHaveBeenApplied(err: unknown): boolean {
  const e = err as { name?: unknown; message?: unknown } | null;
  if (!e || e.name === 'ReplyError') return false;
  if (e.name === 'MaxRetriesPerRequestError') return true;
  return (
    typeof e.message === 'string' &&
    (LOST_IN_FLIGHT.test(e.message) || CLUSTER_LOST_IN_FLIGHT.test(e.message))
  );
}

export function isTransientRedisError(err: unknown): boolean {
  return callErrorKind(err) === 'transient';
}

/**
 * How long to wait before trying a temporarily failing call again: capped exponential backoff
 * with jitter, 50, 100, 200 ... ms up to `capMs`, each taken at 50-100% so that many workers
 * coming back from one outage do not retry in step.
 */
export function backoffMs(failures: number, capMs = 1000): number {
  const ms = Math.min(capMs, 50 * 2 ** Math.max(0, failures - 1));
  return Math.round(ms * (0.5 + Math.random() / 2));
}
