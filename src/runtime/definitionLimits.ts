// Limits declared in a definition (defineJob / definePipeline `concurrency`, `rateLimit`,
// `keyRateLimit`, and the machine's own `machineConcurrency`, `sharedLimit`, `machineRateLimit`):
// checked when the definition is made, and merged into the one set of limits a supervisor
// writes to each queue it serves (RegistryRefresh.ts). Limits belong to a queue, not to a
// machine (the claim is per queue), so two definitions of one supervisor that declare
// different limits are refused: which would the queue keep? (docs/flow-control.md)

import { DefinitionError } from '../errors.js';
import { FAIRNESS } from '../store/roles/FlowControl.js';
import type { Fairness, QueueFlowChange, RateLimit } from '../store/types.js';

/**
 * What a definition may declare (defineJob's and definePipeline's options extend it): the limits
 * of the queue its supervisor serves, written there at start unless limits were set at run time
 * with setQueueLimits, which win (docs/flow-control.md).
 */
export interface DefinitionLimits {
  /**
   * Most running jobs of the queue (`total`) and of one concurrency key (`perKey`); `fairness`
   * 'roundRobin' alternates the keys (default 'fifo': queue order).
   */
  concurrency?: { total?: number; perKey?: number; fairness?: Fairness };
  /** The throttle: at most `limit` + `burst` starts in any window of `perMs` (a GCRA). */
  rateLimit?: RateLimit;
  /** The throttle of each concurrency key on its own (one GCRA per key). */
  keyRateLimit?: RateLimit;
  /** Most running jobs of THIS machine in its queue (its gate 'm:<machine>'). */
  machineConcurrency?: number;
  /** The named limit of its queue this machine counts against (gate 's:<name>', set at run time). */
  sharedLimit?: string;
  /** The throttle of THIS machine in its queue on its own (a GCRA per machine). */
  machineRateLimit?: RateLimit;
}

const whole = (v: unknown, min: number): v is number => Number.isInteger(v) && (v as number) >= min;

/** The definition's limits, normalised (burst 0 when absent); throws DefinitionError when bad. */
export function validateLimits(
  options: DefinitionLimits,
  where: string,
  machine: string,
): DefinitionLimits | undefined {
  const { concurrency } = options;
  const out: DefinitionLimits = {};
  if (concurrency !== undefined) {
    if (typeof concurrency !== 'object' || concurrency === null)
      throw new DefinitionError(`${where}: concurrency must be { total?, perKey? }`, {
        machine,
        field: 'concurrency',
      });
    for (const f of ['total', 'perKey'] as const) {
      const v = concurrency[f];
      if (v !== undefined && !whole(v, 1))
        throw new DefinitionError(
          `${where}: concurrency.${f} must be a positive integer (got ${String(v)})`,
          {
            machine,
            field: `concurrency.${f}`,
          },
        );
    }
    const { fairness } = concurrency;
    if (fairness !== undefined && !FAIRNESS.includes(fairness))
      throw new DefinitionError(
        `${where}: concurrency.fairness must be one of ${FAIRNESS.join(', ')} (got ${String(fairness)})`,
        { machine, field: 'concurrency.fairness' },
      );
    const unknown = Object.keys(concurrency).filter(
      (k) => k !== 'total' && k !== 'perKey' && k !== 'fairness',
    );
    if (unknown.length > 0)
      throw new DefinitionError(
        `${where}: concurrency has no field ${unknown.join(', ')} (total, perKey, fairness)`,
        { machine, field: 'concurrency' },
      );
    out.concurrency = {
      total: concurrency.total,
      perKey: concurrency.perKey,
      ...(fairness !== undefined ? { fairness } : {}),
    };
  }
  for (const field of ['rateLimit', 'keyRateLimit', 'machineRateLimit'] as const) {
    if (options[field] === undefined) continue;
    const r = options[field] as Partial<RateLimit> | null;
    if (
      typeof r !== 'object' ||
      r === null ||
      !whole(r.limit, 1) ||
      !whole(r.perMs, 1) ||
      !whole(r.burst ?? 0, 0) ||
      (r.mode !== undefined && r.mode !== 'wait' && r.mode !== 'skip')
    )
      throw new DefinitionError(
        `${where}: ${field} must be { limit, perMs, burst?, mode? }: limit and perMs positive integers, burst an integer >= 0, mode 'wait' or 'skip'`,
        { machine, field },
      );
    out[field] = {
      limit: r.limit,
      perMs: r.perMs,
      burst: r.burst ?? 0,
      ...(r.mode === 'skip' ? { mode: r.mode } : {}),
    };
  }
  const { machineConcurrency, sharedLimit } = options;
  if (machineConcurrency !== undefined && !whole(machineConcurrency, 1))
    throw new DefinitionError(`${where}: machineConcurrency must be a positive integer`, {
      machine,
      field: 'machineConcurrency',
    });
  if (sharedLimit !== undefined && (typeof sharedLimit !== 'string' || sharedLimit === ''))
    throw new DefinitionError(`${where}: sharedLimit must be a non-empty name`, {
      machine,
      field: 'sharedLimit',
    });
  if (machineConcurrency !== undefined && sharedLimit !== undefined)
    throw new DefinitionError(`${where}: declare machineConcurrency or sharedLimit, not both`, {
      machine,
      field: 'sharedLimit',
    });
  if (machineConcurrency !== undefined) out.machineConcurrency = machineConcurrency;
  if (sharedLimit !== undefined) out.sharedLimit = sharedLimit;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The change a supervisor writes to each queue it serves from its definitions' limits, or
 * undefined when none declares any (then it writes nothing: a supervisor of an older deploy
 * must not clear the limits a newer one wrote). A limit no definition declares is cleared.
 */
export function definitionFlow(
  defs: readonly { name: string; limits?: DefinitionLimits }[],
): QueueFlowChange | undefined {
  let first: { name: string; text: string } | undefined;
  let limits: DefinitionLimits | undefined;
  // THE MACHINE GATES (store/roles/FlowControl.ts): each machine's own, per machine (they differ
  // by design); a machine that declares none has its gate taken away.
  const gates: Record<string, number | null> = {};
  const machineGates: Record<string, string | null> = {};
  const machineRateLimits: Record<string, RateLimit | null> = {};
  let gated = false;
  for (const d of defs) {
    const { machineConcurrency, sharedLimit, machineRateLimit, ...queueLimits } = d.limits ?? {};
    machineRateLimits[d.name] = machineRateLimit ?? null;
    gates[`m:${d.name}`] = machineConcurrency ?? null;
    machineGates[d.name] =
      machineConcurrency !== undefined
        ? `m:${d.name}`
        : sharedLimit !== undefined
          ? `s:${sharedLimit}`
          : null;
    if (machineConcurrency !== undefined || sharedLimit !== undefined || machineRateLimit !== undefined)
      gated = true;
    if (Object.keys(queueLimits).length === 0) continue;
    const text = JSON.stringify(queueLimits);
    if (first && first.text !== text)
      throw new DefinitionError(
        `machines ${first.name} and ${d.name} declare different queue limits (${first.text} and ${text}); ` +
          'limits belong to the queue: declare the same on both, or on one only',
        { machine: d.name, field: 'concurrency' },
      );
    first ??= { name: d.name, text };
    limits = queueLimits;
  }
  if (!limits && !gated) return undefined;
  return {
    total: limits?.concurrency?.total ?? null,
    perKey: limits?.concurrency?.perKey ?? null,
    rateLimit: limits?.rateLimit ?? null,
    keyRateLimit: limits?.keyRateLimit ?? null,
    fairness: limits?.concurrency?.fairness ?? 'fifo',
    gates,
    machineGates,
    machineRateLimits,
    fromDefinition: true,
  };
}
