// What a HookStore writes for `schedule` and `disable`, and how it reads a job's hooks: the rules
// every backend must keep alike, written once here. A backend supplies the primitive steps (a
// Redis MULTI, or MemoryStore's maps) and makes the whole of one call atomic.

import type { HookMessage, HookSchedule, HookedJob } from './HookStore.js';

/*
 * A job's hook record (last status, 410 flags) lives as long as the job's record: the store's
 * retention deletes both together (lua/sweep-5.lua, MemoryStore's leaseOps.sweep; a purged dead
 * letter's expire together), so a dead letter redriven days later still knows the 410s it got.
 */

/** The chain of a job's state hooks ('s') or of its final hook ('f'). */
export function hookChain(jobId: string, kind: 's' | 'f'): string {
  return `${jobId}|${kind}`;
}

/** A job's hook record: the last status told, and the receivers that answered 410. */
export type HookMetaField = 'last' | 'offs' | 'offf';

/** The primitive steps of one atomic write, as each backend makes them. */
export interface HookWriter {
  /** Appends to the chain's end. */
  append(chain: string, message: HookMessage): void;
  /** Lists the chain as due at `at`, unless it is listed already (ZADD NX). */
  dueUnlessListed(chain: string, at: number): void;
  /** Takes the chain off the due list and drops its messages. */
  dropChain(chain: string): void;
  setMeta(jobId: string, field: HookMetaField, value: string): void;
  unhook(ids: string[]): void;
  setCursor(cursor: string): void;
}

/**
 * HookStore.schedule's writes (the lease check is the caller's): a new message joins its
 * chain's end and the chain is due now unless it is already due (a chain waiting for a retry
 * keeps its time: order within a chain is never broken); a finished job leaves the hooked list
 * (its hook record stays as long as the job's record).
 */
export function writeSchedule(w: HookWriter, s: HookSchedule, now: number): void {
  for (const { chain, message } of s.messages) {
    w.append(chain, message);
    w.dueUnlessListed(chain, now);
  }
  for (const [id, status] of s.last) w.setMeta(id, 'last', status);
  if (s.finished.length > 0) w.unhook(s.finished);
  w.setCursor(s.cursor);
}

/** HookStore.disable's writes: the 410 is remembered (as long as the job), and the chain is dropped. */
export function writeDisable(w: HookWriter, jobId: string, kind: 's' | 'f'): void {
  w.setMeta(jobId, kind === 's' ? 'offs' : 'offf', '1');
  w.dropChain(hookChain(jobId, kind));
}

/**
 * A job's hooks as the dispatcher needs them, from the job's stored fields (options JSON,
 * status, state) and its hook record; undefined when it has no record or no hooks.
 */
export function hookedJobOf(
  options: string | null | undefined,
  status: string | null | undefined,
  state: string | null | undefined,
  meta: Partial<Record<HookMetaField, string | null>>,
): HookedJob | undefined {
  let webhook: HookedJob['webhook'] | undefined;
  try {
    webhook = options ? (JSON.parse(options) as { webhook?: HookedJob['webhook'] }).webhook : undefined;
  } catch {
    webhook = undefined;
  }
  if (!webhook) return undefined;
  return {
    webhook,
    status: status ?? null,
    state: state ?? null,
    last: meta.last ?? null,
    off: { s: meta.offs === '1', f: meta.offf === '1' },
  };
}

/**
 * Whether a job's options ask for webhooks. A job that runs again (a redriven dead letter) is
 * listed as hooked again with this, as enqueue lists a new one: the dispatcher took it off the
 * list when it told its first end, and would otherwise say nothing of the new run.
 */
export function hasWebhook(options: string | null | undefined): boolean {
  return hookedJobOf(options, null, null, {}) !== undefined;
}
