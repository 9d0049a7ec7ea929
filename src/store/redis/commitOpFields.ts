// The names a commit op travels under to lua/commit-12.lua: CommitOp's own (commitTypes.ts), so
// the TypeScript and the Lua read one vocabulary (op.output, op.snapshot, op.delayMs ...). The
// encoder (encodeOps.ts) sends an op's field values in the order of these lists; the Lua gets
// the tables generated (luaConstants.ts) and rebuilds each op under these names from them
// (lua/include/readCommitOps.lua), checking every field before it writes anything.

import type { CommitOp } from '../commitTypes.js';

type Kind = CommitOp['kind'];
type OpOf<K extends Kind> = Extract<CommitOp, { kind: K }>;
/** What an op of kind K carries besides its kind, id and token (sent by every op). */
type FieldOf<K extends Kind> = Exclude<keyof OpOf<K>, 'kind' | 'id' | 'token'>;
type AnyField = { [K in Kind]: FieldOf<K> }[Kind];

/**
 * Per kind, the fields the encoder sends, one value each in this order ('' when not set; the log,
 * last, as a count then its entries). Each name is checked against CommitOp's type;
 * test/store/redis/commitOpRecords.test.ts checks that every field of every kind is listed and
 * that each reaches the Lua under its name.
 */
export const COMMIT_OP_FIELDS: { readonly [K in Kind]: readonly FieldOf<K>[] } = {
  checkpoint: ['status', 'snapshot', 'state', 'progress', 'inboxConsumed', 'version', 'log'],
  done: ['output', 'snapshot', 'state', 'version', 'log'],
  fail: ['error', 'snapshot', 'state', 'resume', 'version', 'log'],
  retry: ['error', 'delayMs', 'attempt', 'snapshot', 'retryLaters', 'holdMs', 'version', 'log'],
  cancelled: ['snapshot', 'state', 'version', 'log'],
  requeue: ['log'],
  park: ['wakeAt', 'snapshot', 'state', 'inboxConsumed', 'version', 'log'],
  broken: ['error', 'log'],
};

/**
 * What each field holds: 'text' a string (JSON texts travel as strings), 'count' a whole number
 * >= 0 (sent as its decimal text, read back as a number), 'entries' a list of log entries (each a
 * JSON text; sent as their count, then each). The Lua refuses an op whose field is not what this
 * says (BAD_COMMIT <op index> <field> ...).
 */
export const COMMIT_OP_TYPES: { readonly [F in AnyField]: 'text' | 'count' | 'entries' } = {
  status: 'text',
  output: 'text',
  snapshot: 'text',
  state: 'text',
  progress: 'text',
  error: 'text',
  resume: 'text',
  inboxConsumed: 'count',
  delayMs: 'count',
  attempt: 'count',
  retryLaters: 'count',
  holdMs: 'count',
  wakeAt: 'count',
  version: 'count',
  log: 'entries',
};

/**
 * The kind the plain done travels under: a done with no snapshot, state or version whose log is
 * exactly {"type":"done"}, the op most jobs end with. It is sent as 4 values (this, id, token,
 * output) and read without making a record of it (lua/include/lcDonePlain.lua's short path).
 */
export const COMMIT_PLAIN_DONE = 'D';

/**
 * THE COMPACT FORMS: a checkpoint, and a done that is not plain, travel under a one-letter kind
 * when they carry no version (a migrate's: most do not), with the fields of COMMIT_OP_FIELDS[kind]
 * but `version`, split in two: `own`, the values each op sends, and `shared`, the values the ops
 * of a call in the same step share (the jobs of a pipeline move in step: the same state, log and
 * inbox position), sent once per call and named by the ops that share them:
 *   letter, id, token, own values, ''  then the shared values (defining set k: the k-th set of
 *                                      shared values of the call, of any letter, from 1)
 *   letter, id, token, own values, k   (set k, defined by an op of the same letter before it)
 * A value is ~1k Redis instructions to read (the request parsed, a Lua string made, freed), so a
 * checkpoint that shares its set costs 5 where it was 10. The Lua applies one to a job in the
 * common case (running, no parent, inbox, fan-out or watcher) without making a record of the op,
 * of the job or of the move (lua/include/lcCompactOp.lua; readCommitOps.lua checks it like any op
 * first), and makes the op's record from these lists only for a job it leaves to the general
 * path. Figures (bench/probes/commitOps.ts under callgrind) in the commits that add them.
 */
export const COMMIT_COMPACT: {
  readonly [letter: string]: {
    readonly kind: 'checkpoint' | 'done';
    readonly own: readonly string[];
    readonly shared: readonly string[];
  };
} = {
  C: {
    kind: 'checkpoint',
    own: ['snapshot'],
    shared: ['status', 'state', 'progress', 'inboxConsumed', 'log'],
  },
  S: { kind: 'done', own: ['output'], shared: ['snapshot', 'state', 'log'] },
};

/**
 * A RUN of compact ops: k ops next to each other in a call, of one letter, that share one set of
 * shared values, travel as COMMIT_COMPACT_RUN, their letter, k, then '' and the shared values
 * (defining a set, numbered as any other) or the number of a set sent before, then per op its
 * id, token and own values: 2 + own values an op, where alone it sends 4 + own (its letter and
 * the set's number besides). The encoder sends a run of 3 or more so (of 2, as many values
 * either way); the Lua reads any k >= 1. The jobs of a pipeline that move in step (a claim's
 * jobs, each at its next step) make such runs: a checkpoint then costs Redis two values fewer to
 * read (~1k instructions each under callgrind), and the worker two fewer to write.
 */
export const COMMIT_COMPACT_RUN = 'R';
