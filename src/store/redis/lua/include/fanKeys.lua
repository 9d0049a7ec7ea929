--- @include "fanKey"
-- The record key of every group in `fg`, in the order they were opened.
local function fanKeys(kp, parentId, fg)
  local keys = {}
  for line in string.gmatch(fg, '[^\n]+') do
    keys[#keys + 1] = fanKey(kp, parentId, string.match(line, '^([^\t]*)'))
  end
  return keys
end
