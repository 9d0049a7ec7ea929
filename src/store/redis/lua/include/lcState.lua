-- The lifecycle's settings for this call: a script that moves jobs sets LC.kp (its queue's key
-- prefix), LC.now (nowMs()), LC.maxLen (the event stream's cap) and LC.ttl (retention) first.
-- LC.wake: lcFlush wakes an idle supervisor (there is new work, or a due time came earlier).
-- LC.keyed: the queue may hold jobs with a concurrency key (`ck`), so the reads of a job take
-- its `ck` too; a script that knows the queue never had one (commit-12.lua, from the `keyed`
-- flag enqueue-5.lua sets in `flow`) sets it false and spares every job that read.
local LC = { kp = '', now = 0, maxLen = '1000', ttl = 0, wake = false, keyed = true }
