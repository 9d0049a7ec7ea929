-- A number as the text redis.call would send for it. Redis formats every Lua number passed to
-- redis.call with "%.17g" (printf's floating-point path: ~3.6k instructions a number under
-- callgrind, 7 a job on the plain path before); a script formats a number it sends once, an
-- integer (every time, score and count the scripts send) with "%d", the integer path, and passes
-- the text. The text is the same: "%.17g" prints an integer below 1e17 as "%d" does.
local numFormat = string.format
local function numText(x)
  if x % 1 == 0 and x < 1e15 and x > -1e15 then return numFormat('%d', x) end
  return numFormat('%.17g', x)
end
