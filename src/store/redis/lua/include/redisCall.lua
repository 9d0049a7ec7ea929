-- redis.call as an upvalue, for the commands every job runs (its record's creation, the claim's
-- read and write, the plain or minimal done's): `redis.call(...)` looks up the global `redis`,
-- then its `call`, two table look-ups a command (under callgrind, commitOps.ts: -1.4%
-- redis-server instructions for a plain job's claim and done, -1.9% for a minimal one's).
local redisCall = redis.call
