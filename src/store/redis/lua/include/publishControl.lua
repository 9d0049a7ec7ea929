-- Tells a worker about one of its running jobs ('cancel <id>', 'event <id>', 'fanin <id>') on its
-- control channel `<kp>ctl:<worker>`, in the queue's hash tag (so in the slot this script runs
-- in). SPUBLISH (sharded, Redis 7+ and Valkey) keeps the message on this shard of a cluster; a
-- server without it gets PUBLISH, and the subscriber (ControlSubscriber.ts) falls back the same
-- way. Called after the script's writes, so it never raises: the message is a fast path (a
-- heartbeat or the job's next park learns the same), and Lua cannot roll the writes back.
local function publishControl(kp, worker, message)
  local channel = kp .. 'ctl:' .. worker
  local r = redis.pcall('SPUBLISH', channel, message)
  if type(r) == 'table' and r.err and string.find(string.lower(r.err), 'unknown', 1, true) then
    redis.pcall('PUBLISH', channel, message)
  end
end
