--- @include "lcState"
--- @include "lcLeave"
--- @include "lcClaimDue"
--- @include "numText"
--- @include "digitText"
--- @include "redisCall"
-- THE EARLY LEASE (docs/architecture.md, "Timers and the early lease"): a claim also takes
-- parked jobs whose timer is due within the worker's LEAD (ms), not yet due, so each is
-- claimed, restored and waiting in the worker's memory when its timer fires: at the due
-- instant only its ending is left to write (issue 25: 100k timers due at once).
--
-- Invariants, enforced here:
--   ONLY A PARKED TIMER  an entry of `delayed` is taken early only when its job is `waiting`
--        (parked with a wake time): a backoff retry or a delayed enqueue (`queued` with a run-at)
--        would start running early, so it never is.
--   THE STRAIGHT RULE    only a job lcDueStraight allows (no concurrency key, no parent on this
--        queue, no cancel requested, a record and a machine, a log written out or a minimal
--        record), on a queue the caller finds straight with no total and no throttle (commit-12
--        .lua): nothing a gate could set aside or end, nothing a slot count of the queue counts.
--   A NORMAL LEASE  the job leaves `waiting` and `delayed` and is claimed as a due job claimed
--        straight is (its WAKE's place, `ua`, `ra` gone; lcClaim): `working` under a lease in
--        `active`, to the window's end and a lease more (lcClaimJobs.lua: no heartbeat is needed
--        while it waits, supervisor/LeaseKeeper.ts). Crash recovery is the lease's (reap-7.lua requeues it at its expiry: its run
--        restores the snapshot, whose timer fires at its stored due time, not before); a cancel
--        or an event reaches it as any running job.
--   AS MANY AS ASKED  at most `hold` (the worker's budget of held jobs left, capped by the
--        caller), the earliest due first; entries scanned and not taken stay as they are.
-- Returns the ids taken and their DUE READs (in due order), and the time (ms, store clock) of
-- the next claim that may take one early (nil: none known; the idle supervisor's wake, commit-12
-- .lua's next due, is the earlier of it and the first entry's due time); then their records'
-- keys and the places their claims write (as text), in the same order.
local function lcClaimEarly(hold, lead)
  local kp = LC.kp
  local kDelayed = kp .. 'delayed'
  local horizon = LC.now + lead
  -- Not yet due only: what is due is THE DUE CLAIM's (it took its share already). No scores:
  -- each one's text costs Redis its formatting (numText.lua); one is read below when needed.
  local scan = redis.call('ZRANGEBYSCORE', kDelayed, '(' .. lcNowText(), numText(horizon), 'LIMIT', '0', numText(hold))
  -- THE FIELDS ASKED (lcClaimDue.lua's DUE READ).
  local asked = LC.keyed and 19 or LC.minimal and 18 or 17
  local ids, taken, keys, n = {}, {}, {}, 0
  for i = 1, #scan do
    local jk = kp .. 'job:' .. scan[i]
    local r = lcDueReadKey(jk, asked)
    if r[8] == 'waiting' and not r[16] and lcDueStraight(r) then
      n = n + 1
      ids[n], taken[n], keys[n] = scan[i], r, jk
    end
  end
  local nextAt = nil
  if #scan < hold then
    -- The window was scanned to its end: the next entry beyond it comes within the lead at its
    -- due time minus the lead.
    local beyond = redis.call('ZRANGEBYSCORE', kDelayed, '(' .. numText(horizon), '+inf', 'WITHSCORES', 'LIMIT', '0',
      '1')
    if beyond[2] then nextAt = tonumber(beyond[2]) - lead end
  elseif n < hold then
    -- Cut short by entries not taken (a backoff retry, a job with a key...): the scan goes on
    -- from there once the last one scanned is due (THE DUE CLAIM takes it then, or moves it on).
    nextAt = tonumber(redis.call('ZSCORE', kDelayed, scan[#scan]))
  end
  if n == 0 then return nil, nil, nextAt end
  -- THE PLACE IN LINE: the WAKE's, as THE DUE CLAIM's (a fresh seq each, in its band).
  local seq = redis.call('HINCRBY', kp .. 'meta', 'seq', numText(n)) - n
  local leaving, places = { id = false, st = 'waiting' }, {}
  -- THE PLACES' TEXT, as lcClaimDue.lua makes it: the head once per ten places, then a digit.
  local tensOf, tensText = -1, nil
  for i = 1, n do
    local r = taken[i]
    local band = r[17] and tonumber(r[17]) or 2
    local score = band * BAND + seq + i
    local digit = score % 10
    local tens = (score - digit) / 10
    if tens ~= tensOf then tensOf, tensText = tens, numText(tens) end
    places[i] = tensText .. DIGIT_TEXT[digit + 1]
    redisCall('HDEL', keys[i], 'ra')
    leaving.id = ids[i]
    lcLeave(leaving)
  end
  return ids, taken, nextAt, keys, places
end
