--- @include "lcState"
--- @include "lcRead"
--- @include "lcMove"
--- @include "lcBatch"
-- Moves due entries of `delayed` (backoff retries, delayed enqueues, parked jobs whose wake
-- time came) into `queued`, behind the jobs already waiting in their priority band. A parked
-- job's wake-up is its WAKE move (lcMove); a delayed job only changes
-- place. Returns how many entries were due.
local function promoteDue()
  local kDelayed = LC.kp .. 'delayed'
  -- Numbers as text (numText.lua): each number sent is formatted with "%.17g" (~4k instructions).
  local due = redis.call('ZRANGEBYSCORE', kDelayed, '-inf', lcNowText(), 'LIMIT', '0', '1000')
  if #due == 0 then return 0 end
  local seq = redis.call('HINCRBY', LC.kp .. 'meta', 'seq', #due) - #due
  for i, id in ipairs(due) do
    local j = lcRead(id, true)
    if j.st == 'queued' or j.st == 'waiting' then
      -- No `pr`: the normal band (see enqueue-5.lua).
      local score = (tonumber(j.pr) or 2) * BAND + seq + i
      lcMove(j, 'queued', { score = score })
    end
  end
  redis.call('ZREM', kDelayed, unpack(due))
  lcFlush()
  return #due
end
