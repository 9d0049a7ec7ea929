// MemoryStore's check of a flow change (setQueueFlow), before anything is written: as
// lua/flow-3.lua refuses a malformed value (BAD_FLOW), each refusal a ValidationError naming
// its field and queue.

import { ValidationError } from '../../errors.js';
import { FAIRNESS, KEY_STRATEGIES } from '../roles/FlowControl.js';
import type { QueueFlowChange, RateLimit } from '../types.js';

/** Refuses a change with a value out of range (ValidationError naming its field), before any write. */
export function checkFlowChange(queue: string, change: QueueFlowChange): void {
  for (const f of ['total', 'perKey'] as const) {
    const v = change[f];
    if (v !== undefined && v !== null && !(Number.isInteger(v) && v >= 1))
      throw new ValidationError(`${f} must be a positive integer or null (got ${String(v)})`, {
        field: f,
        queue,
      });
  }
  for (const [field, v] of [
    ['rateLimit', change.rateLimit],
    ['keyRateLimit', change.keyRateLimit],
  ] as const)
    if (v && !goodRate(v))
      throw new ValidationError(
        `${field} wants a positive limit and perMs, a burst >= 0 and mode wait or skip`,
        {
          field,
          queue,
        },
      );
  for (const [m, v] of Object.entries(change.machineRateLimits ?? {}))
    if (m === '' || (v !== null && !goodRate(v)))
      throw new ValidationError(
        `machineRateLimits.${m} wants a positive limit and perMs, a burst >= 0 and mode wait or skip`,
        { field: 'machineRateLimits', queue },
      );
  for (const [gate, v] of Object.entries(change.gates ?? {}))
    if (gate === '' || (v !== null && !(Number.isInteger(v) && v >= 1)))
      throw new ValidationError(`gate ${gate} wants a positive integer limit or null (got ${String(v)})`, {
        field: 'gates',
        queue,
      });
  for (const [m, g] of Object.entries(change.machineGates ?? {}))
    if (m === '' || g === '')
      throw new ValidationError('a machine gate wants a machine name and a gate id, or null', {
        field: 'machineGates',
        queue,
      });
  if (change.strategy !== undefined && !KEY_STRATEGIES.includes(change.strategy))
    throw new ValidationError(`strategy must be one of ${KEY_STRATEGIES.join(', ')}`, {
      field: 'strategy',
      queue,
    });
  if (change.fairness !== undefined && !FAIRNESS.includes(change.fairness))
    throw new ValidationError(`fairness must be one of ${FAIRNESS.join(', ')}`, {
      field: 'fairness',
      queue,
    });
}

const goodRate = (v: RateLimit): boolean =>
  Number.isInteger(v.limit) &&
  v.limit >= 1 &&
  Number.isInteger(v.perMs) &&
  v.perMs >= 1 &&
  Number.isInteger(v.burst ?? 0) &&
  (v.burst ?? 0) >= 0 &&
  (v.mode === undefined || v.mode === 'wait' || v.mode === 'skip');
