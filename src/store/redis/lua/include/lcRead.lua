--- @include "lcState"
-- Reads what a move needs in one HMGET. A field a small job's hash does not have costs a scan
-- of the whole hash (a listpack), so a finish from a running status reads only the seven it
-- needs; `full` adds what the other moves need (the cancel request, place in line, band, run-at,
-- lease requeues). A finish needs no `cx`: the cancel guard does not apply to it.
local function lcRead(id, full)
  local jk = LC.kp .. 'job:' .. id
  if not full then
    local r = redis.call('HMGET', jk, 'st', 'tk', 'ls', 'ib', 'par', 'fg', 'wt')
    return { id = id, jk = jk, st = r[1], tk = r[2], ls = r[3], ib = r[4], par = r[5], fg = r[6],
      wt = r[7] }
  end
  local r = redis.call('HMGET', jk, 'st', 'tk', 'cx', 'ls', 'ib', 'par', 'fg', 'wt', 'qs', 'lr', 'ra', 'pr')
  return { id = id, jk = jk, st = r[1], tk = r[2], cx = r[3], ls = r[4], ib = r[5], par = r[6],
    fg = r[7], wt = r[8], qs = r[9], lr = r[10], ra = r[11], pr = r[12], full = true }
end
