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

-- The texts of the digits 0-9, by digit + 1: the last digit of a run of numbers made as text
-- once per ten (THE TOKENS' TEXT, include/lcClaimJobs.lua; THE PLACES' TEXT, lcClaimDue.lua).
local DIGIT_TEXT = { '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' }
