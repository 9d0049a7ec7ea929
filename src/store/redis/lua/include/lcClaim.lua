--- @include "lcState"
--- @include "lcBatch"
--- @include "addLog"
-- The claim of a job popped from `queued` (st must be queued): status `st` (loading|working)
-- under lease `token` until `deadline`; `entry`: its audit entry, when the caller logs one (`ls`:
-- the log count as read).
local function lcClaim(id, jk, st, token, deadline, ls, entry)
  local args = { 'st', st, 'tk', token, 'ct', LC.now }
  if entry then addLog(args, jk, ls, LC.now, { entry }) end
  redis.call('HSET', jk, unpack(args))
  lcIndex('active', deadline, id)
  lcTell(id, 'claimed', st)
end
