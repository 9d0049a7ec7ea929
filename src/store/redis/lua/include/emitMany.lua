--- @include "emit"
-- One COMBINED entry for many jobs that made the same transition in one script call
-- (claimed, done, enqueued): field `js` holds their ids joined by ','; no `j` field.
-- RedisStore.readEvents expands it into one QueueEvent per job (same cursor, in order), so
-- every job's transition stays visible on the stream at a fraction of the XADDs.
local function emitMany(eventsKey, maxLen, now, ids, kind, status)
  if #ids == 0 then return end
  if #ids == 1 then return emit(eventsKey, maxLen, now, ids[1], kind, status) end
  redis.call('XADD', eventsKey, 'MAXLEN', '~', maxLen, '*', 'js', table.concat(ids, ','), 't', kind, 's', status, 'at', now)
end
