// The store-level claim and done the flow tests drive the commit with (test/flow/*): a claim of
// up to `max` jobs by worker w1, and the plain done of a claimed job, as a supervisor sends them.

import type { ClaimedJob, CommitOp } from '../../src/store/types.js';

export const claimUpTo = (max: number) => ({ workerId: 'w1', max, leaseMs: 60_000, loadMachines: [] });

export const doneOp = (c: ClaimedJob): CommitOp => ({
  kind: 'done',
  id: c.id,
  token: c.token,
  output: '1',
  snapshot: '',
  log: ['{"type":"done"}'],
});
