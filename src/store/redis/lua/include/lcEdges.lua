-- from -> to -> the event of machines/job.ts that makes the move (REDRIVE starts a new
-- lifecycle from a dead letter, so the machine, where `failed` is final, does not show it).
-- test/lifecycle/lifecycleTable.test.ts holds this table equal to the machine.
local EDGES = {
  queued = { loading = 'CLAIM', working = 'CLAIM', cancelled = 'CANCEL' },
  loading = { working = 'LOADED', queued = 'FAIL', failed = 'FAIL', cancelled = 'CANCEL' },
  working = { done = 'SUCCEED', queued = 'FAIL', failed = 'FAIL', waiting = 'PARK', cancelled = 'CANCEL' },
  waiting = { queued = 'WAKE', cancelled = 'CANCEL' },
  done = {},
  failed = { queued = 'REDRIVE' },
  cancelled = {},
}
local FINAL = { done = true, failed = true, cancelled = true }
-- Statuses a write may keep (a checkpoint: progress, snapshot, inbox position).
local UPDATABLE = { loading = true, working = true }
