-- The keys of a parent's fan-out records (inlined by the loader at `--@include fankeys`; before
-- fanin). A record is <kp>fan:<parentId>:<group>; the parent's `fg` field names its groups, one
-- "<group>\t<total>" line each (fanOpen-2.lua appends them; fanOutOps.fanGroups reads them).
local function fanKey(kp, parentId, group)
  return kp .. 'fan:' .. parentId .. ':' .. group
end

-- The record key of every group in `fg`, in the order they were opened.
local function fanKeys(kp, parentId, fg)
  local keys = {}
  for line in string.gmatch(fg, '[^\n]+') do
    keys[#keys + 1] = fanKey(kp, parentId, string.match(line, '^([^\t]*)'))
  end
  return keys
end
