-- Time is Redis's clock, never a worker's: leases, run-at times and log stamps all come from here.
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
