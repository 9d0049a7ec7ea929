-- redis.call as an upvalue, for the commands every job runs (the claim's read and write, the plain
-- done's): `redis.call(...)` looks up the global `redis`, then its `call`, two table look-ups a
-- command (under callgrind, commitOps.ts: -1.4% redis-server instructions a plain job, -1.9% a
-- minimal one, for their six).
local redisCall = redis.call
