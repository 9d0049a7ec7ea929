-- THE RECORD'S KEYS, written once: what goes when a job's record is deleted, by retention
-- (sweep-5.lua's retire) or at the end of a minimal record (lcDoneMinimal.lua), and what expires
-- with a purged dead letter (purgeDead-3.lua): the hash, its webhook bookkeeping and its inbox
-- (the list, gone already once the job ended, and its sent-event ids, which a finished job keeps
-- for a repeated send: send-5.lua; a DEL of a missing key costs nothing). MemoryStore's twin:
-- QueueState.dropRecord.
local function recordKeys(kp, id)
  return { kp .. 'job:' .. id, kp .. 'hookmeta:' .. id, kp .. 'inbox:' .. id, kp .. 'inboxids:' .. id }
end
