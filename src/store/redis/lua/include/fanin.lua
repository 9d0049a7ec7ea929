-- Child -> parent delivery (fan-in). Records one child's outcome in its parent's fan-out record,
-- at most once per child, and wakes the parent when the set it awaits is complete: all done,
-- or (failFast) the first failure. O(1) commands per child, whatever the fan-out's size.
-- `pkp` is the PARENT's queue prefix; every key used here is derived from it, so they share
-- the parent queue's hash tag (callers must run in that slot).
local function fanIn(pkp, parentId, group, index, status, result, now, maxLen)
  local fk = pkp .. 'fan:' .. parentId .. ':' .. group
  local meta = redis.call('HMGET', fk, 'n', 'p', 'x')
  if not meta[1] then return 0 end
  if redis.call('HSETNX', fk, 'r' .. index, result) == 0 then return 0 end
  local d = redis.call('HINCRBY', fk, 'd', 1)
  local n = tonumber(meta[1])
  local complete = d >= n
  if status ~= 'done' then
    redis.call('HINCRBY', fk, 'f', 1)
    if meta[2] == 'failFast' then complete = true end
  end
  local pk = pkp .. 'job:' .. parentId
  local pr = redis.call('HMGET', pk, 'st', 'qs', 'tk')
  if not pr[1] then return 1 end
  redis.call('HSET', pk, 'p', '{"children":{"done":' .. d .. ',"total":' .. n .. '}}')
  if complete and meta[3] ~= '1' then
    redis.call('HSET', fk, 'x', '1')
    if pr[1] == 'waiting' then
      redis.call('ZREM', pkp .. 'waiting', parentId)
      redis.call('ZREM', pkp .. 'delayed', parentId)
      redis.call('ZADD', pkp .. 'queued', pr[2], parentId)
      redis.call('ZADD', pkp .. 'marker', 0, 'w')
      redis.call('HSET', pk, 'st', 'queued', 'ua', now)
      emit(pkp .. 'events', maxLen, now, parentId, 'fan-in', 'queued')
    elseif pr[1] == 'working' or pr[1] == 'loading' then
      -- Running: tell its worker now; if it parks first, the park sees `fw` and wakes it.
      redis.call('HSET', pk, 'fw', '1')
      local w = tokenWorker(pr[3])
      if w then redis.call('PUBLISH', pkp .. 'ctl:' .. w, 'fanin ' .. parentId) end
    elseif pr[1] == 'queued' then
      redis.call('HSET', pk, 'fw', '1')
    end
  end
  return 1
end

-- Called when a job reaches done / failed / cancelled. A child of a parent on the same queue is
-- delivered here, atomically with its ending; one on another queue (another hash slot) is put
-- in this queue's outbox, which workers relay (at least once; fanIn is idempotent per child).
-- `c` is {par, pq, pg, pi} when the caller read them already (commit does, with its HMGET).
local function notifyParent(kp, jk, id, status, result, now, maxLen, c, ttl)
  c = c or redis.call('HMGET', jk, 'par', 'pq', 'pg', 'pi')
  if not c[1] then return end
  -- The parent's index of its children on this queue lives as long as the children do.
  if ttl then redis.call('PEXPIRE', kp .. 'children:' .. c[1], ttl) end
  if not c[2] or c[2] == '' then
    fanIn(kp, c[1], c[3], c[4], status, result, now, maxLen)
  else
    redis.call('ZADD', kp .. 'outbox', now, id)
  end
end

-- A parent that ended (done or cancelled) takes its fan-out records with it: they expire with
-- its record. (A failed parent is a dead letter: its records stay until purged.)
local function expireFans(kp, jk, id, ttl, fg)
  if fg == nil then fg = redis.call('HGET', jk, 'fg') end
  if not fg then return end
  for line in string.gmatch(fg, '[^\n]+') do
    local group = string.match(line, '^([^\t]*)')
    redis.call('PEXPIRE', kp .. 'fan:' .. id .. ':' .. group, ttl)
  end
end

-- A job that ends cancelled outside a worker's commit (cancel-8: it was not running; reap-7: its
-- worker died after a cancel was asked): the record, the cancelled index, its parent, its
-- fan-outs, its inbox and the stream. No TTL on the record: sweep-2.lua deletes it by the index.
local function endCancelled(kp, jk, id, args, ls, entry, cancelledKey, eventsKey, now, maxLen, ttl)
  addLog(args, jk, ls, now, { entry })
  redis.call('HSET', jk, unpack(args))
  redis.call('ZADD', cancelledKey, now, id)
  notifyParent(kp, jk, id, 'cancelled', '{"s":"cancelled"}', now, maxLen, nil, ttl)
  expireFans(kp, jk, id, ttl)
  redis.call('DEL', kp .. 'inbox:' .. id)
  pushResult(kp, jk, id, nil)
  emit(eventsKey, maxLen, now, id, 'cancelled', 'cancelled')
end
