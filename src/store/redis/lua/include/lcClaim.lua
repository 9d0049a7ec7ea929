--- @include "lcState"
--- @include "lcBatch"
--- @include "addLog"
--- @include "redisCall"
-- The claim of a job popped from `queued` (st must be queued): status `st` (loading|working)
-- under lease `token` until `deadline` (as text: numText.lua); `entry`: its audit entry, when
-- the caller logs one (`ls`: the log count as read). `quiet`: a minimal record (`rm`): no stream
-- entry. `place`: for a job claimed straight from `delayed` (THE DUE CLAIM in
-- include/lcClaimDue.lua), its new place in line as text: written with it, as its WAKE writes
-- it, with `ua` (now); else nil.
local function lcClaim(id, jk, st, token, deadline, ls, entry, quiet, place)
  if place then
    local nowT = lcNowText()
    local args = { 'st', st, 'tk', token, 'ct', nowT, 'ua', nowT, 'qs', place }
    if entry then addLog(args, jk, ls, LC.now, { entry }) end
    redisCall('HSET', jk, unpack(args))
  elseif entry then
    local args = { 'st', st, 'tk', token, 'ct', lcNowText() }
    addLog(args, jk, ls, LC.now, { entry })
    redisCall('HSET', jk, unpack(args))
  else
    redisCall('HSET', jk, 'st', st, 'tk', token, 'ct', lcNowText())
  end
  lcIndex('active', deadline, id)
  if not quiet then lcTell(id, 'claimed', st) end
end
