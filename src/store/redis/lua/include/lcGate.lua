--- @include "lcState"
--- @include "lcBatch"
--- @include "lcFlow"
-- THE MACHINE GATES: concurrency limits of one machine, or shared by several machines, of a
-- queue that serves several (docs/flow-control.md); the same slots-and-line mechanism as a
-- concurrency key's (lcFlow.lua), keyed by a GATE ID: 'm:<machine>' (a machine's own limit) or
-- 's:<name>' (a named limit the machines that name it share). Keys, under the queue's prefix:
--   mgates      hash: 'm:<machine>' -> the gate id of the machine; 'g:<gate id>' -> its limit
--               (flow-3.lua writes both); `gated` in `flow` is '1' while it exists
--   gh:<gate>   set: the ids of the RUNNING (loading/working) jobs that hold a slot of the gate
--   gwait:<gate> zset: THE GATE'S LINE, the jobs set aside because it was full, by place
--   gkeys       set: the gates that have a gh: or gwait: key
-- INVARIANTS (as lcFlow.lua's for keys): a job is in gh:<gate> exactly while it is running:
-- added by the claim (commit-12.lua), removed ONLY by lcFreeGate (from lcLeave). A job holds at
-- most one gate (its machine's). A job in gwait:<gate> is queued and in no index; each slot that
-- frees puts the head of the line back in `queued`, and any change of the limits puts every line
-- back (flow-3.lua). A job's gate is not stored on it: leaving, it is looked for in the gates in
-- use (a few), so a change of a machine's gate while it runs cannot strand its slot.
-- Gate id 'r:<machine>' is THE MACHINE THROTTLE's line (lcMachineRate.lua): a line with no
-- holders ever, listed, counted, left and put back by a change like the others; only its due
-- time (mdue) releases it otherwise.

-- Whether the queue has gates: from commit-12's read of `flow`, else one HGET per call.
local function lcGated()
  if LC.gated == nil then LC.gated = redis.call('HGET', LC.kp .. 'flow', 'gated') == '1' end
  return LC.gated
end

-- Running job `id` stops: the gate slot it holds frees, and the head of that gate's line goes
-- back in line (HERE ONLY).
local function lcFreeGate(id)
  local kp = LC.kp
  for _, g in ipairs(redis.call('SMEMBERS', kp .. 'gkeys')) do
    if redis.call('SREM', kp .. 'gh:' .. g, id) == 1 then
      local head = redis.call('ZPOPMIN', kp .. 'gwait:' .. g)
      if head[1] then
        lcEnterQueued(head[1], head[2], lcRR() and redis.call('HGET', kp .. 'job:' .. head[1], 'ck') or nil)
      elseif redis.call('SCARD', kp .. 'gh:' .. g) == 0 then
        redis.call('SREM', kp .. 'gkeys', g)
      end
      return
    end
  end
end

-- A queued job that leaves queued: out of any gate's line. Returns whether it was in one.
local function lcLeaveGateLines(id)
  local was = false
  for _, g in ipairs(redis.call('SMEMBERS', LC.kp .. 'gkeys')) do
    if redis.call('ZREM', LC.kp .. 'gwait:' .. g, id) == 1 then was = true end
  end
  return was
end

-- The gate of machine `m` and its limit (nil: none), read once per machine per call.
local lcGateCache = {}
local function lcGateOf(m)
  local c = lcGateCache[m]
  if c == nil then
    local g = redis.call('HGET', LC.kp .. 'mgates', 'm:' .. m)
    local limit = g and tonumber(redis.call('HGET', LC.kp .. 'mgates', 'g:' .. g))
    c = (g and limit) and { g = g, limit = limit } or false
    lcGateCache[m] = c
  end
  return c or nil
end
