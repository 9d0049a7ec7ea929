-- A newline-joined list (ops' entry fields) as a table; '' or nil: empty.
local function splitEntries(s)
  local out = {}
  if s == nil or s == '' then return out end
  if not string.find(s, '\n', 1, true) then out[1] = s; return out end
  for e in string.gmatch(s, '[^\n]+') do out[#out + 1] = e end
  return out
end
