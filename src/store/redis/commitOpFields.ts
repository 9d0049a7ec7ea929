// The names a commit op travels under to lua/commit-12.lua: CommitOp's own (commitTypes.ts), so
// the TypeScript and the Lua read one vocabulary (op.output, op.snapshot, op.delayMs ...). The
// encoder (encodeOps.ts) sends an op's fields by these lists; the Lua gets both tables generated
// (luaConstants.ts) and checks an op's fields by them before it writes anything.

import type { CommitOp } from '../commitTypes.js';

type Kind = CommitOp['kind'];
type OpOf<K extends Kind> = Extract<CommitOp, { kind: K }>;
/** What an op of kind K carries besides its kind, id and token (sent by every op). */
type FieldOf<K extends Kind> = Exclude<keyof OpOf<K>, 'kind' | 'id' | 'token'>;
type AnyField = { [K in Kind]: FieldOf<K> }[Kind];

/**
 * Per kind, the fields the encoder sends (when set). Each name is checked against CommitOp's
 * type; test/store/redis/commitOpRecords.test.ts checks that every field of every kind is listed.
 */
export const COMMIT_OP_FIELDS: { readonly [K in Kind]: readonly FieldOf<K>[] } = {
  checkpoint: ['status', 'snapshot', 'state', 'progress', 'inboxConsumed', 'version', 'log'],
  done: ['output', 'snapshot', 'state', 'version', 'log'],
  fail: ['error', 'snapshot', 'state', 'resume', 'version', 'log'],
  retry: ['error', 'delayMs', 'attempt', 'snapshot', 'retryLaters', 'version', 'log'],
  cancelled: ['snapshot', 'state', 'version', 'log'],
  requeue: ['log'],
  park: ['wakeAt', 'snapshot', 'state', 'inboxConsumed', 'version', 'log'],
  broken: ['error', 'log'],
};

/**
 * What each field holds on the wire: 'text' a string (JSON texts travel as strings), 'count' a
 * whole number >= 0, 'entries' a list of log entries (each a JSON text). The Lua refuses an op
 * whose field is not what this says (BAD_COMMIT <op index> <field> ...).
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
  wakeAt: 'count',
  version: 'count',
  log: 'entries',
};
