--- @include "lcState"
--- @include "lcBatch"
--- @include "addLog"
-- The claim of a job popped from `queued` (st must be queued): status `st` (loading|working)
-- under lease `token` until `deadline` (as text: numText.lua); `entry`: its audit entry, when
-- the caller logs one (`ls`: the log count as read).
local function lcClaim(id, jk, st, token, deadline, ls, entry)
  if entry then
    local args = { 'st', st, 'tk', token, 'ct', lcNowText() }
    addLog(args, jk, ls, LC.now, { entry })
    redis.call('HSET', jk, unpack(args))
  else
    redis.call('HSET', jk, 'st', st, 'tk', token, 'ct', lcNowText())
  end
  lcIndex('active', deadline, id)
  lcTell(id, 'claimed', st)
end
