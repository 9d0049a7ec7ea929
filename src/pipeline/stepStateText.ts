// A compiled run's persisted snapshot of a step or wait state (XState's form, which either runtime
// restores), and its stored text; and the stored text of its final state's. A checkpoint of a compiled run is written once per step, and
// most of that text is the state's own, the same at every write: the text is made from the
// state's parts (precomputed per state) and the JSON of its context and its step's input, without
// the object per write nor a walk of the parts that never change; a context or input that is not
// plain JSON (a Date, a Map ... in the value codec's envelope, or what cannot be stored) goes the
// general way, storedMachineJson of the object, whose error names the culprit.

import { plainJsonText } from '../store/valueCodec.js';
import type { CompiledState, Ctx } from './compiledTable.js';
import { storedMachineJson } from './storedParts.js';

/** XState's persisted snapshot of a machine in a step or wait state (key order as XState writes it). */
export function persistedStepState(state: CompiledState, context: Ctx, input: unknown): unknown {
  const step = state.step;
  return {
    status: 'active',
    value: state.name,
    historyValue: {},
    context,
    children: step
      ? { [step.invokeId]: { snapshot: { status: 'active', input }, src: step.src, syncSnapshot: false } }
      : {},
  };
}

/** A state's text around its context and its step's input. */
interface Frame {
  head: string;
  /** After the context, up to where the input goes ('}' for a wait state: the end). */
  mid: string;
  tail: string;
}

const frames = new WeakMap<CompiledState, Frame>();

/** What storedMachineJson makes of the constant parts (compactMachine: no `historyValue: {}`, nor `children: {}`). */
function frameOf(state: CompiledState): Frame {
  let f = frames.get(state);
  if (f) return f;
  const head = `{"status":"active","value":${JSON.stringify(state.name)},"context":`;
  const step = state.step;
  f = step
    ? {
        head,
        mid: `,"children":{${JSON.stringify(step.invokeId)}:{"snapshot":{"status":"active"`,
        tail: `},"src":${JSON.stringify(step.src)},"syncSnapshot":false}}}`,
      }
    : { head, mid: '}', tail: '' };
  frames.set(state, f);
  return f;
}

/**
 * storedMachineJson(persistedStepState(state, context, input)), the same text (test:
 * test/pipeline/stepStateText.test.ts). Throws UnserializableSnapshotError as that does.
 */
export function stepStateText(state: CompiledState, context: Ctx, input: unknown): string {
  // At their depths in the snapshot: the context is a field of its root, the input is in
  // children.<id>.snapshot.
  const ctx = plainJsonText(context, 1);
  const inp = input === undefined || !state.step ? '' : plainJsonText(input, 4);
  if (ctx === undefined || inp === undefined)
    return storedMachineJson(persistedStepState(state, context, input));
  const f = frameOf(state);
  return inp === '' ? f.head + ctx + f.mid + f.tail : `${f.head}${ctx}${f.mid},"input":${inp}${f.tail}`;
}

/**
 * storedMachineJson of a compiled run's final snapshot, `{status: 'done', output, value: name,
 * historyValue: {}, context, children: {}}` (`persisted` makes it, asked only when the output or
 * context is not plain JSON), the same text made from its parts (test:
 * test/pipeline/stepStateText.test.ts). Throws UnserializableSnapshotError as that does.
 */
export function doneStateText(name: string, output: unknown, context: Ctx, persisted: () => unknown): string {
  const out = output === undefined ? '' : plainJsonText(output, 1);
  const ctx = plainJsonText(context, 1);
  if (out === undefined || ctx === undefined) return storedMachineJson(persisted());
  const value = `"value":${JSON.stringify(name)},"context":${ctx}}`;
  return out === '' ? `{"status":"done",${value}` : `{"status":"done","output":${out},${value}`;
}
