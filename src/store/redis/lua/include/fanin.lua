-- Child -> parent delivery (fan-in); included after lifecycle and fankeys. Records one child's outcome in
-- its parent's fan-out record, at most once per child, and wakes the parent when the set it
-- awaits is complete: all done, or (failFast) the first failure. O(1) commands per child,
-- whatever the fan-out's size. The parent lives on LC.kp's queue: callers run in its slot
-- (fanIn-2.lua, the outbox relay, sets LC.kp to the parent's queue).
local function fanIn(parentId, group, index, status, result)
  local pkp = LC.kp
  local fk = fanKey(pkp, parentId, group)
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
  local p = lcRead(parentId)
  if not p.st then return 1 end
  redis.call('HSET', p.jk, 'p', '{"children":{"done":' .. d .. ',"total":' .. n .. '}}')
  if complete and meta[3] ~= '1' then
    redis.call('HSET', fk, 'x', '1')
    if p.st == 'waiting' then
      lcMove(p, 'queued', { kind = 'fan-in' })
    elseif p.st == 'working' or p.st == 'loading' then
      -- Running: tell its worker now; if it parks first, the park sees `fw` and wakes it.
      redis.call('HSET', p.jk, 'fw', '1')
      local w = tokenWorker(p.tk)
      if w then redis.call('PUBLISH', pkp .. 'ctl:' .. w, 'fanin ' .. parentId) end
    elseif p.st == 'queued' then
      redis.call('HSET', p.jk, 'fw', '1')
    end
  end
  return 1
end

-- Called by lcMove when a child reaches done / failed / cancelled. A child of a parent on the
-- same queue is delivered here, atomically with its ending; one on another queue (another hash
-- slot) is put in this queue's outbox with its outcome, which workers relay (at least once;
-- fanIn is idempotent per child).
LCH.notifyParent = function(jk, id, status, result)
  local c = redis.call('HMGET', jk, 'par', 'pq', 'pg', 'pi')
  if not c[1] then return end
  -- The parent's index of its children on this queue lives as long as the children do.
  redis.call('PEXPIRE', LC.kp .. 'children:' .. c[1], LC.ttl)
  if not c[2] or c[2] == '' then
    fanIn(c[1], c[3], c[4], status, result)
  else
    -- The entry carries what the parent's fan-in needs (src/store/outboxEntry.ts): the relay
    -- never reads this record, which retention may have deleted by then.
    local entry = cjson.encode({ id, c[1], c[2], c[3] or '', c[4] or '0', status, result })
    redis.call('ZADD', LC.kp .. 'outbox', LC.now, entry)
  end
end

-- A parent that ended done or cancelled takes its fan-out records with it: they expire with
-- its record. (A failed parent is a dead letter: its records stay until it is purged, redriven or retired.)
LCH.expireFans = function(id, fg)
  for _, fk in ipairs(fanKeys(LC.kp, id, fg)) do redis.call('PEXPIRE', fk, LC.ttl) end
end
