--[[ keyPause: pauses or resumes one concurrency key of a queue (a queue, or one partition).
KEYS: 1 flow hash, 2 queued zset, 3 marker zset (the others derive from the prefix: kpaused,
      ckwait:<key>, ckkeys; see include/lcKeyGate.lua for the layout and its invariants)
ARGV: 1 key prefix, 2 the concurrency key, 3 '1' pause, '0' resume
Returns 1.
A paused key's jobs are set aside in its line by the claim (commit-12.lua) that meets them; its
running jobs finish. A resume puts its whole line back into `queued` at their places (the claim
sets aside again what its slots or its rate do not allow; on a roundRobin queue only the key's
heads, include/lcFlow.lua) and wakes an idle supervisor.
]]
--- @include "lcKeyGateMark"
--- @include "lcState"
--- @include "lcBatch"
--- @include "lcFlow"
local flowKey, queuedKey, markerKey = KEYS[1], KEYS[2], KEYS[3]
local kp, ck, paused = ARGV[1], ARGV[2], ARGV[3]
if not ck or ck == '' then return redis.error_reply('BAD_FLOW key') end
if paused == '1' then
  redis.call('SADD', kp .. 'kpaused', ck)
elseif paused == '0' then
  redis.call('SREM', kp .. 'kpaused', ck)
  -- Its line back (on a roundRobin queue, its heads: include/lcFlow.lua's lcReleaseLine).
  LC.kp = kp
  redis.call('ZREM', kp .. 'kdue', ck)
  lcReleaseLine(ck)
  lcFlushIndexes()
  redis.call('ZADD', markerKey, 0, 'w')
else
  return redis.error_reply('BAD_FLOW paused')
end
lcKeyGateMark(flowKey, kp)
return 1
