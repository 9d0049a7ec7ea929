-- THE RECORD'S KEYS, written once: what goes when a job's record is deleted, by retention
-- (sweep-5.lua's retire) or at the end of a minimal record (lcDoneMinimal.lua): the hash, its
-- webhook bookkeeping and its inbox (list and sent-event ids; a finished job's are gone already,
-- a DEL of a missing key costs nothing). MemoryStore's twin: QueueState.dropRecord.
local function recordKeys(kp, id)
  return { kp .. 'job:' .. id, kp .. 'hookmeta:' .. id, kp .. 'inbox:' .. id, kp .. 'inboxids:' .. id }
end
