// The store-level jobs, claim and done the tests drive the commit with (test/flow/*,
// test/redis/bareRecord.test.ts, test/lifecycle/*): a new job, a claim of up to `max` jobs by
// worker w1, and the plain done of a claimed job, as a supervisor sends them.

import type { ClaimedJob, CommitOp, NewJob } from '../../src/store/types.js';

/** A new job `id` of machine 'j' (version 1, normal band, 3 attempts, null input), with `extra`. */
export const newJob = (id: string, extra: Partial<NewJob> = {}): NewJob => ({
  id,
  machine: 'j',
  version: 1,
  input: 'null',
  band: 2,
  delayMs: 0,
  maxAttempts: 3,
  ...extra,
});

/** Each band a job can be of (2 is stored as no `pr`), with a concurrency key and without: the
 * kinds of record THE BARE RECORD's count must tell apart (test/redis/bareRecord.test.ts,
 * defaultsLeftOut.test.ts). */
export const BAND_AND_KEY_KINDS: [string, Partial<NewJob>][] = [
  ['the normal band', {}],
  ['another band', { band: 0 }],
  ['the normal band with a concurrency key', { concurrencyKey: 'k1' }],
  ['another band with a concurrency key', { band: 3, concurrencyKey: 'k2' }],
];

/** A new job `id` of machine 'm' with an input, as the bare-record tests enqueue it: `newJob`'s
 * others, `maxAttempts` as given (3 makes a record that holds `v` and `ma`; 4, the default, one
 * that leaves both out). */
export const recordJob =
  (maxAttempts: number) =>
  (id: string, extra: Partial<NewJob> = {}): NewJob =>
    newJob(id, { machine: 'm', input: '{"n":1}', maxAttempts, ...extra });

export const claimUpTo = (max: number) => ({ workerId: 'w1', max, leaseMs: 60_000, loadMachines: [] });

/** The plain done of a claimed job with `output` (a JSON text), as a supervisor sends it. */
export const doneWith =
  (output: string) =>
  (c: ClaimedJob): CommitOp => ({
    kind: 'done',
    id: c.id,
    token: c.token,
    output,
    snapshot: '',
    log: ['{"type":"done"}'],
  });

export const doneOp = doneWith('1');
