--[[ watch: reads a job's record and, unless it has finished, adds a watcher to its `wt` field,
in one step: a finish either shows in this read or comes after it, and then pushes the record
to the watcher's result list (include/pushResult.lua). Nothing can fall between.
With ARGV[2] 'off' it takes the watcher off instead (a wait that gave up), so the ids of
waiters that are gone do not pile up on a job that runs for long.
KEYS[1] the job's record
ARGV[1] watcher id, ARGV[2] 'off' | ''
Returns the record's JOB_FIELDS values (all nil when there is no record); with 'off', 1.
]]
--- @include "pushResult"
--- @include "addWatcher"
local jobKey = KEYS[1]
if ARGV[2] == 'off' then
  local wt = redis.call('HGET', jobKey, 'wt')
  if not wt then return 1 end
  local keep = {}
  for w in string.gmatch(wt, '[^,]+') do
    if w ~= ARGV[1] then keep[#keep + 1] = w end
  end
  if #keep == 0 then redis.call('HDEL', jobKey, 'wt') else redis.call('HSET', jobKey, 'wt', table.concat(keep, ',')) end
  return 1
end
-- One read: the record's fields and, last, `wt` (taken off before the reply).
local fields = { unpack(JOB_FIELDS) }
fields[#fields + 1] = 'wt'
local v = redis.call('HMGET', jobKey, unpack(fields))
local wt = v[#fields]
v[#fields] = nil
addWatcher(jobKey, v[1] and v[3], wt, ARGV[1])
return v
