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
  local nowT = lcNowText()
  local n = entry and ls and tonumber(ls)
  if n then
    -- Its entry on a log written out already (addLogOne): no argument table.
    local count, text = addLogOne(jk, n, LC.now, entry)
    if place then
      redisCall('HSET', jk, 'st', st, 'tk', token, 'ct', nowT, 'ua', nowT, 'qs', place, 'l' .. count, text, 'ls', count)
    else
      redisCall('HSET', jk, 'st', st, 'tk', token, 'ct', nowT, 'l' .. count, text, 'ls', count)
    end
  elseif entry then
    -- Its log still implicit: addLog writes it out first.
    local args = place and { 'st', st, 'tk', token, 'ct', nowT, 'ua', nowT, 'qs', place }
      or { 'st', st, 'tk', token, 'ct', nowT }
    addLog(args, jk, ls, LC.now, { entry })
    redisCall('HSET', jk, unpack(args))
  elseif place then
    redisCall('HSET', jk, 'st', st, 'tk', token, 'ct', nowT, 'ua', nowT, 'qs', place)
  else
    redisCall('HSET', jk, 'st', st, 'tk', token, 'ct', nowT)
  end
  lcIndex('active', deadline, id)
  if not quiet then lcTell(id, 'claimed', st) end
end
