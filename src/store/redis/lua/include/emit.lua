-- One entry on the queue's capped event stream, which dashboards and waiters follow.
local function emit(eventsKey, maxLen, now, id, kind, status)
  redis.call('XADD', eventsKey, 'MAXLEN', '~', maxLen, '*', 'j', id, 't', kind, 's', status, 'at', now)
end
