-- The lifecycle's settings for this call: a script that moves jobs sets LC.kp (its queue's key
-- prefix), LC.now (nowMs()), LC.maxLen (the event stream's cap) and LC.ttl (retention) first.
-- LC.wake: lcFlush wakes an idle supervisor (there is new work, or a due time came earlier).
local LC = { kp = '', now = 0, maxLen = '1000', ttl = 0, wake = false }
