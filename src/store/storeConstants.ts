// Constants both stores keep to (RedisStore's Lua gets them generated from here: see
// src/store/redis/luaConstants.ts), so no value is held equal by hand.

/** Queue scores: priority band in the high bits, FIFO sequence below. 2^44 sequences per band,
 * and 4 bands stay under 2^53, so a double holds the score exactly. */
export const BAND = 2 ** 44;

/** Audit log entries kept per job: the oldest fall out. */
export const LOG_CAP = 1000;

/** How long a pushed result waits for its watcher to pop it (one that gave up never will). */
export const RESULT_TTL_MS = 60_000;

/** How long a queue remembers which worker's jobs the reaper took back (the fleet's `requeued`). */
export const REAPED_KEPT_MS = 24 * 3_600_000;

/** ... and how many of them at most, per queue. */
export const REAPED_CAP = 1000;

/** How long a supervisor that stopped heartbeating stays listed as gone (then it is forgotten). */
export const FLEET_GONE_KEPT_MS = 3_600_000;
