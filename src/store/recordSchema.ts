// The stored job record: every field of a job hash (`<prefix>:{<queue>}:job:<id>`), its compact
// name, what it means, how its value is encoded, and which Lua files write it. The one list the
// decoders take their names from (decodeJob.ts JOB_FIELDS) and test/store/recordSchema.test.ts
// holds the Lua to: a script that writes a field not listed here, or a listed writer that no
// longer writes it, fails that test. A change here is a change of the data format: see
// storeFormat.ts (STORE_FORMAT and its migrations) and docs/data-format.md.

export interface FieldSpec {
  /** The compact name in the hash (`l<n>`: the numbered family l1, l2, ...). */
  readonly name: string;
  readonly meaning: string;
  /** How the value is written: a JSON text, a decimal number, a flag '1', plain text. */
  readonly encoding: string;
  /** The Lua files (scripts and includes, without `.lua`) whose text writes the field. */
  readonly writtenBy: readonly string[];
}

const f = (name: string, meaning: string, encoding: string, writtenBy: string[]): FieldSpec => ({
  name,
  meaning,
  encoding,
  writtenBy,
});

/**
 * THE DEFAULTS LEFT OUT (data format 4): the version and max attempts of a record that has no `v`
 * or `ma`. lcCreate (lua/include/lcCreate.lua) leaves both out when both are these, and every
 * reader takes an absent one for these. Part of the data format, not a setting: a record written without
 * the field would read otherwise if they changed. (`maxAttempts` is the runtime's default,
 * DEFAULT_MAX_ATTEMPTS in runtime/backoff.ts, as it was when format 4 was made: most jobs have it.)
 */
export const BASE_DEFAULTS = { version: 1, maxAttempts: 4 } as const;

/** A base field as read (null or '': absent) as its number, `dflt` when absent. */
const absentAs =
  (dflt: number) =>
  (text: string | null | undefined): number =>
    text === null || text === undefined || text === '' ? dflt : Number(text);

/** A record's `v` as read: its machine version. */
export const storedVersion = absentAs(BASE_DEFAULTS.version);

/** A record's `ma` as read: its max attempts. */
export const storedMaxAttempts = absentAs(BASE_DEFAULTS.maxAttempts);

// The scripts that make a job (its rare fields); include/lcCreate writes the base fields.
const CREATE = ['enqueue-5', 'drainIngress-7'];
const BASE = ['lcCreate'];

/** Every field of a job hash, in the order of docs/data-format.md. */
export const JOB_HASH: readonly FieldSpec[] = [
  f('m', 'machine name', 'text', BASE),
  f('v', 'machine version (absent: 1; after a migrate: the version its snapshot is now of)', 'decimal', [
    ...BASE,
    'commit-12',
  ]),
  f(
    'in',
    'input (a debounce or keepLast enqueue replaces a queued one: include/dedupe)',
    'value codec JSON',
    [...BASE, 'dedupe'],
  ),
  f('st', 'status: queued loading working waiting done failed cancelled', 'text', [
    ...BASE,
    'lcClaim',
    'lcDonePlain',
    'lcMove',
    'lcCompactOp',
  ]),
  f('pr', 'priority band 0-3 (absent: 2, normal)', 'decimal', CREATE),
  f('qs', "queue score: band and FIFO place ('' when done)", 'decimal', [
    ...BASE,
    'lcMove',
    'lcClaim',
    'lcDonePlain',
    'lcCompactOp',
  ]),
  f('ma', 'max attempts (absent: 4)', 'decimal', BASE),
  f('a', 'attempt, 1-based (absent: 1 once claimed, 0 before)', 'decimal', ['commit-12', 'retryDead-6']),
  f('lr', 'lease requeues since the last checkpoint', 'decimal', ['reap-7', 'retryDead-6']),
  f('ca', 'created at', 'Redis ms', BASE),
  f('ct', 'last claimed at', 'Redis ms', ['lcClaim']),
  f('ua', 'updated at (writes other than create, claim and end)', 'Redis ms', [
    'cancel-8',
    'send-5',
    'lcMove',
    'lcClaim',
    'lcClaimJobs',
    'lcCompactOp',
  ]),
  f('fa', 'finished at', 'Redis ms', ['lcDonePlain', 'lcMove', 'lcCompactOp']),
  f('ra', 'run at: delayed enqueue, retry time, park wake time', 'Redis ms', [...CREATE, 'lcMove']),
  f('ik', 'idempotency key', 'text', ['enqueue-5']),
  f('ck', 'concurrency key: the flow gate holds it to its perKey limit (include/lcFlow.lua)', 'text', [
    'enqueue-5',
    'drainIngress-7',
  ]),
  f('dk', 'dedupe key (not ttl): lcMove frees its record as the job ends', 'text', ['dedupe']),
  f('rm', "'1': a minimal record (no audit log or stream entries; deleted as it ends done)", 'flag', [
    'enqueue-5',
  ]),
  f('opt', 'per-job options (timeoutMs, webhooks)', 'JSON', CREATE),
  f('tk', "lease token '<workerId>:<n>' ('' when none)", 'text', [
    'lcClaim',
    'lcDonePlain',
    'lcMove',
    'lcCompactOp',
  ]),
  f('s', 'state value (the user machine’s for pipelines)', 'JSON', ['commit-12', 'lcCompactOp']),
  f('sn', 'snapshot { w?, t?, h? }: machine, timers, held events (an l: ignored)', 'JSON', [
    'commit-12',
    'retryDead-6',
    'lcCompactOp',
  ]),
  f('p', 'progress (fan-in writes {"children":{done,total}})', 'value codec JSON', [
    'commit-12',
    'lcMove',
    'lcCompactOp',
  ]),
  f('o', 'output', 'value codec JSON', ['commit-12', 'lcDonePlain', 'lcCompactOp']),
  f('e', 'error {name,message,code?,stack?}', 'JSON', ['commit-12', 'reap-7', 'lcMove']),
  f('ls', 'audit log length (absent: the implicit log)', 'decimal', [
    ...CREATE,
    'addLog',
    'dedupe',
    'lcClaim',
    'lcCompactOp',
  ]),
  f('l<n>', "audit log entry n: '<at> <type>' or '<at> <JSON>'", 'text', [
    ...CREATE,
    'addLog',
    'dedupe',
    'lcClaim',
    'lcCompactOp',
  ]),
  f('cx', "'1': cancel requested", 'flag', ['cancel-8', 'lcClaimJobs']),
  f('par', 'parent job id', 'text', ['enqueue-5']),
  f('pq', "parent's queue ('' when the same)", 'text', ['enqueue-5']),
  f('pg', 'fan-out group in the parent', 'text', ['enqueue-5']),
  f('pi', 'index in the fan-out', 'decimal', ['enqueue-5']),
  f('fg', 'fan-out groups opened: group\\ttotal lines', 'text', ['fanOpen-2']),
  f('fw', 'a fan-out completed while the job was not parked: wake on park', 'flag', ['lcMove']),
  f('ib', "'1': the job has an inbox list", 'flag', ['send-5']),
  f('io', 'inbox events consumed (position; absent: 0)', 'decimal', ['commit-12', 'lcCompactOp']),
  f('rs', "a failed pipeline's resume snapshot: what a redrive restores as sn", 'JSON', ['commit-12']),
  f('rl', 'RetryLaterError postponements so far (RetryLaterExhausted past the cap)', 'decimal', [
    'commit-12',
  ]),
  f('wt', "watchers waiting for the job's end, ids joined by ','", 'text', [
    'addWatcher',
    'enqueue-5',
    'watch-1',
  ]),
  f('raw', "a broken ingress entry's text as pushed", 'text', ['drainIngress-7']),
];

const NAMES = new Set(JOB_HASH.map((s) => s.name));

/** Whether `name` is a field of the job hash (l1, l2, ... are the `l<n>` family). */
export function isJobField(name: string): boolean {
  return NAMES.has(/^l\d+$/.test(name) ? 'l<n>' : name);
}

/** The compact names by what they hold: the decoders name fields through this, not by literal. */
export const F = {
  machine: 'm',
  version: 'v',
  status: 'st',
  state: 's',
  snapshot: 'sn',
  input: 'in',
  output: 'o',
  error: 'e',
  attempt: 'a',
  maxAttempts: 'ma',
  leaseRequeues: 'lr',
  priority: 'pr',
  progress: 'p',
  parentId: 'par',
  parentQueue: 'pq',
  group: 'pg',
  index: 'pi',
  runAt: 'ra',
  createdAt: 'ca',
  updatedAt: 'ua',
  finishedAt: 'fa',
  cancelRequested: 'cx',
  claimedAt: 'ct',
  options: 'opt',
  fanGroups: 'fg',
  raw: 'raw',
  logLength: 'ls',
  minimal: 'rm',
} as const;

/** The audit log's entry `n` (1-based): the `l<n>` family. */
export const logEntryField = (n: number): string => `l${n}`;
