--- @include "numText"
-- The lifecycle's settings for this call: a script that moves jobs sets LC.kp (its queue's key
-- prefix), LC.now (nowMs()), LC.maxLen (the event stream's cap) and LC.ttl (retention) first.
-- LC.wake: lcFlush wakes an idle supervisor (there is new work, or a due time came earlier).
-- LC.keyed: the queue may hold jobs with a concurrency key (`ck`), so the reads of a job take
-- its `ck` too; a script that knows the queue never had one (commit-12.lua, from the `keyed`
-- flag enqueue-5.lua sets in `flow`) sets it false and spares every job that read.
-- LC.slots: the queue may keep per-key slots (ck:<key>, only while `perKey` is set: lcFlow.lua);
-- commit-12.lua, which reads perKey anyway, sets it false when none is set and spares a job that
-- stops running the SREM that would find nothing.
-- LC.minimal: the queue may hold minimal records (`rm`, include/lcDoneMinimal.lua), so the reads
-- of a job take `rm` too; commit-12.lua sets it from the `minimal` flag enqueue-5.lua sets in `flow`.
-- LC.readyTail: the place (score) of the last job this call put at the back of `ready`
-- (include/lcReady.lua's THE RULE; 0: none yet).
-- LC.maxIn: the largest input a claim sends (WITHHELD INPUT, commit-12.lua; 0: no limit).
local LC = { kp = '', now = 0, maxLen = '1000', ttl = 0, wake = false, keyed = true, slots = true, minimal = true,
  readyTail = 0, maxIn = 0 }

-- LC.now as text (numText.lua: Redis would format the number each time it is sent), made once
-- per value of LC.now.
local function lcNowText()
  if LC.nowTextOf ~= LC.now then LC.nowTextOf = LC.now; LC.nowText = numText(LC.now) end
  return LC.nowText
end
