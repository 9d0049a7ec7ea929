--- @include "emit"
-- One COMBINED entry for many jobs that made the same transition in one script call
-- (claimed, done, enqueued): field `js` holds their ids joined by ','; no `j` field.
-- RedisStore.readEvents expands it into one QueueEvent per job (same cursor, in order), so
-- every job's transition stays visible on the stream at a fraction of the XADDs.
-- `grouped` (or nil): the same ids as the client grouped them (THE IDS GROUPED, data format 4:
-- src/store/redis/idGroups.ts, enqueue-5.lua's plain batch), written as field `jg` instead.
local function emitMany(eventsKey, maxLen, now, ids, kind, status, grouped)
  if #ids == 0 then return end
  if #ids == 1 then return emit(eventsKey, maxLen, now, ids[1], kind, status) end
  if grouped then
    redis.call('XADD', eventsKey, 'MAXLEN', '~', maxLen, '*', 'jg', grouped, 't', kind, 's', status, 'at', now)
    return
  end
  redis.call('XADD', eventsKey, 'MAXLEN', '~', maxLen, '*', 'js', table.concat(ids, ','), 't', kind, 's', status, 'at', now)
end
