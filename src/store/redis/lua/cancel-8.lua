--[[ cancel: ends a job that is not running at once; asks a running job's worker to stop it.
KEYS: 1 queued, 2 delayed, 3 waiting, 4 cancelled, 5 events, 6 active, 7 meta, 8 marker
ARGV: 1 key prefix, 2 events max length, 3 finished TTL ms, 4 job id, 5 reason
Returns { result, status, hasChildren }: result 'cancelled' | 'requested' | 'finished';
hasChildren 1 when the job fanned out (the caller then walks its subtree).
Errors: JOB_NOT_FOUND <id>.

A running job (loading, working, with a lease) gets `cx` set: its worker hears of it on its
control channel at once, or at its next heartbeat; and whatever its attempt writes next but a
finish (a retry, a park, a requeue), and any claim, ends it cancelled (the CANCEL GUARD in
include/lcMove.lua), so a lost message cannot lose the cancel.
]]
--- @include "nowMs"
--- @include "lcState"
--- @include "lcRead"
--- @include "lcMove"
--- @include "lcBatch"
--- @include "addLog"
--- @include "emit"
--- @include "publishControl"
--- @include "tokenWorker"
local eventsKey = KEYS[5]
LC.kp, LC.maxLen, LC.ttl = ARGV[1], ARGV[2], tonumber(ARGV[3])
local id, reason = ARGV[4], ARGV[5]
if not LC.ttl then return redis.error_reply('BAD_CANCEL bad retention') end
-- Full: `cx` tells a repeated cancel of a running job (asked again, logged once).
local j = lcRead(id, true)
if not j.st then return redis.error_reply('JOB_NOT_FOUND ' .. id) end
local kids = j.fg and 1 or 0
if FINAL[j.st] then return { 'finished', j.st, kids } end
LC.now = nowMs()
local worker = tokenWorker(j.tk)
if (j.st == 'loading' or j.st == 'working') and worker then
  if j.cx ~= '1' then
    local args = { 'cx', '1', 'ua', LC.now }
    addLog(args, j.jk, j.ls, LC.now, { '{"type":"cancel-requested","reason":' .. cjson.encode(reason) .. '}' })
    redis.call('HSET', j.jk, unpack(args))
    emit(eventsKey, LC.maxLen, LC.now, id, 'cancel-requested', j.st)
  end
  publishControl(LC.kp, worker, 'cancel ' .. id)
  return { 'requested', j.st, kids }
end
lcMove(j, 'cancelled', { kind = 'cancelled', set = { 'cx', '1' },
  log = { '{"type":"cancelled","reason":' .. cjson.encode(reason) .. '}' } })
lcFlush()
return { 'cancelled', 'cancelled', kids }
