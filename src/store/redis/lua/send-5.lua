--[[ send: delivers an event to a job's inbox, in order, once. A parked job is woken (WAKE) to
take it in; a running job's worker is told over its control channel.
KEYS: 1 queued, 2 waiting, 3 delayed, 4 events, 5 marker
ARGV: 1 key prefix, 2 events max length, 3 job id, 4 event JSON, 5 event type, 6 event id
Returns 1 when delivered, 0 when an event with that id was delivered already (a client that
resends a send whose reply was lost does not deliver it twice), also once the job has ended.
Errors: JOB_NOT_FOUND <id>; JOB_FINISHED <id> <status>; BAD_SEND <why>.
]]
--- @include "nowMs"
--- @include "lcState"
--- @include "lcRead"
--- @include "lcMove"
--- @include "lcBatch"
--- @include "addLog"
--- @include "emit"
--- @include "publishControl"
LC.kp, LC.maxLen = ARGV[1], ARGV[2]
local id, event, etype, eid = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if not event or event == '' or not etype or not eid or eid == '' then
  return redis.error_reply('BAD_SEND event, type and event id are required')
end
local j = lcRead(id)
if not j.st then return redis.error_reply('JOB_NOT_FOUND ' .. id) end
if FINAL[j.st] then
  -- A repeat of an event sent before the job ended (a resend whose first reply was lost): it
  -- was delivered, and is answered so. The ids outlive the inbox (include/lcMove.lua).
  if redis.call('SISMEMBER', LC.kp .. 'inboxids:' .. id, eid) == 1 then return 0 end
  return redis.error_reply('JOB_FINISHED ' .. id .. ' ' .. j.st)
end
-- Sent-event ids live beside the inbox; they stay when the job ends, until its record goes
-- (include/recordKeys.lua), so that a repeat is still known.
if redis.call('SADD', LC.kp .. 'inboxids:' .. id, eid) == 0 then return 0 end
LC.now = nowMs()
redis.call('RPUSH', LC.kp .. 'inbox:' .. id, event)
-- `ib` marks a job that has an inbox list, so finishing jobs that never got an event skip the DEL.
redis.call('HSET', j.jk, 'ib', '1')
j.ib = '1'
local log = { '{"type":"event-received","event":' .. cjson.encode(etype) .. '}' }
if j.st == 'waiting' then
  lcMove(j, 'queued', { kind = 'event-received', log = log })
else
  local args = { 'ua', LC.now }
  addLog(args, j.jk, j.ls, LC.now, log)
  redis.call('HSET', j.jk, unpack(args))
  emit(LC.kp .. 'events', LC.maxLen, LC.now, id, 'event-received', j.st)
  local w = tokenWorker(j.tk)
  if (j.st == 'working' or j.st == 'loading') and w then
    publishControl(LC.kp, w, 'event ' .. id)
  end
end
lcFlush()
return 1
