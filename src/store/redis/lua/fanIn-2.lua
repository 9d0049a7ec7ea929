--[[ fanIn: delivers a finished child's outcome to a parent on another queue (the relay of a
queue's outbox; same-queue children are delivered inside the script that ends them).
KEYS: 1 the fan-out record, 2 the parent's job hash (both in the parent queue's slot)
ARGV: 1 parent queue prefix, 2 parent id, 3 group, 4 child index, 5 status, 6 outcome JSON,
      7 events max length, 8 retention ms
Returns 1 when recorded, 0 when already recorded (or the record is gone).
]]
--- @include "nowMs"
--- @include "lcState"
--- @include "lcMove"
--- @include "lcBatch"
LC.kp, LC.maxLen, LC.ttl, LC.now = ARGV[1], ARGV[7], tonumber(ARGV[8]) or 0, nowMs()
local r = fanIn(ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
lcFlush()
return r
