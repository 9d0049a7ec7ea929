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
-- The entry's list as addLog takes it, one per entry text a call (most claims log one text).
local claimLogs = {}

local function lcClaim(id, jk, st, token, deadline, ls, entry, quiet, place)
  local nowT = lcNowText()
  if place or entry then
    -- Made with room for addLog's 4 (its entry's field and text, `ls` and its text): the nils
    -- size the table (Lua 5.1), so its appends need no resize (~1.5k instructions under callgrind).
    local args
    if place then
      args = { 'st', st, 'tk', token, 'ct', nowT, 'ua', nowT, 'qs', place, nil, nil, nil, nil, nil, nil }
    else
      args = { 'st', st, 'tk', token, 'ct', nowT, nil, nil, nil, nil }
    end
    if entry then
      local list = claimLogs[entry]
      if not list then list = { entry }; claimLogs[entry] = list end
      addLog(args, jk, ls, LC.now, list)
    end
    redisCall('HSET', jk, unpack(args))
  else
    redisCall('HSET', jk, 'st', st, 'tk', token, 'ct', nowT)
  end
  lcIndex('active', deadline, id)
  if not quiet then lcTell(id, 'claimed', st) end
end
