--- @include "lcState"
--- @include "lcRead"
--- @include "lcMove"
--- @include "lcBatch"
--- @include "numText"
-- Moves due entries of `delayed` (backoff retries, delayed enqueues, parked jobs whose wake
-- time came) into `queued`, behind the jobs already waiting in their priority band. A parked
-- job's wake-up is its WAKE move (lcMove); a delayed job only changes
-- place. Returns how many entries were due.
-- A parked job leaves `delayed` with its move (lcLeave, batched); the others' entries (a delayed
-- job stays `queued`, so its move leaves nothing; a stale entry) are removed here. Places go out
-- as integer text (numText.lua).
local function promoteDue()
  local kDelayed = LC.kp .. 'delayed'
  -- Numbers as text (numText.lua): each number sent is formatted with "%.17g" (~4k instructions).
  local due = redis.call('ZRANGEBYSCORE', kDelayed, '-inf', lcNowText(), 'LIMIT', '0', '1000')
  if #due == 0 then return 0 end
  local seq = redis.call('HINCRBY', LC.kp .. 'meta', 'seq', #due) - #due
  local rest = {}
  for i, id in ipairs(due) do
    local j = lcRead(id, true)
    if j.st == 'queued' or j.st == 'waiting' then
      -- No `pr`: the normal band (see enqueue-5.lua).
      local place = (tonumber(j.pr) or 2) * BAND + seq + i
      lcMove(j, 'queued', { score = numText(place), newSeq = place })
    end
    if j.st ~= 'waiting' then rest[#rest + 1] = id end
  end
  if #rest > 0 then redis.call('ZREM', kDelayed, unpack(rest)) end
  lcFlush()
  return #due
end
