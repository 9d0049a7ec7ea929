-- Sets or clears `keyGate` in `flow` from what exists (a change of the throttle or of a pause).
local function lcKeyGateMark(flowKey, kp)
  if redis.call('HEXISTS', flowKey, 'krate') == 1 or redis.call('EXISTS', kp .. 'kpaused', kp .. 'ktat') > 0 then
    redis.call('HSET', flowKey, 'keyGate', '1')
  else
    redis.call('HDEL', flowKey, 'keyGate')
  end
end
