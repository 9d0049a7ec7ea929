-- THE WATCH's mark (include/pushResult.lua reads it): adds `watcher` to the `wt` of the record at
-- `jk`, whose `st` and `wt` the caller read in this same call, unless it has no record or has
-- finished (then its end has been pushed already, or never will be: the caller reads it instead).
-- True when the watcher is on the record. watch-1.lua marks a record a waiter read; enqueue-5.lua
-- one that an enqueue whose caller will wait keeps (the one it makes carries `wt` from the start).
local function addWatcher(jk, st, wt, watcher)
  if not st or st == 'done' or st == 'failed' or st == 'cancelled' then return false end
  if not wt then
    redis.call('HSET', jk, 'wt', watcher)
  elseif not string.find(',' .. wt .. ',', ',' .. watcher .. ',', 1, true) then
    redis.call('HSET', jk, 'wt', wt .. ',' .. watcher)
  end
  return true
end
