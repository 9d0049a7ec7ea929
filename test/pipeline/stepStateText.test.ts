// stepStateText (src/pipeline/stepStateText.ts) writes a compiled run's step or wait state from
// precomputed parts: it MUST be exactly the text storedMachineJson makes of the persisted
// snapshot's object (what every checkpoint of a compiled run stored before), for any context and
// step input, and refuse what that refuses with the same error.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { step } from '../../src/index.js';
import { compileSteps } from '../../src/pipeline/compileSteps.js';
import type { CompiledState } from '../../src/pipeline/compiledTable.js';
import { doneStateText, persistedStepState, stepStateText } from '../../src/pipeline/stepStateText.js';
import { storedMachineJson } from '../../src/pipeline/storedParts.js';

const compiled = compileSteps(
  setup({ actors: { 'do "it"': step(async () => 1) } }).createMachine({
    initial: 'first "one"',
    states: {
      'first "one"': { invoke: { id: 's\u00e91', src: 'do "it"', onDone: 'wait' } },
      wait: { after: { 100: 'end' } },
      end: { type: 'final' },
    },
  }),
)!;

/** A value `levels` objects deep. */
const nested = (levels: number): Record<string, unknown> => {
  let v: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) v = { v };
  return v;
};

/** The value codec's nesting limit (valueCodec.ts MAX_DEPTH), counted from the snapshot's root. */
const LIMIT = 1000;
const marker = JSON.parse('{"__mc":1,"json":{}}') as Record<string, unknown>;
const values: unknown[] = [
  undefined,
  null,
  0,
  -0,
  NaN,
  1.5,
  'a "quoted" \u2028 text',
  true,
  [],
  [1, undefined, 3],
  {},
  { a: undefined, b: 1, c: [null], d: { e: 'x' } },
  { at: new Date(0) },
  { m: new Map([['k', new Set([1])]]) },
  { big: 10n },
  marker,
  { inner: marker },
  Object.create(null) as object,
  nested(LIMIT - 5),
  nested(LIMIT - 4),
  nested(LIMIT - 3),
  nested(LIMIT - 1),
  nested(LIMIT),
];
const refused: unknown[] = [{ f: () => 1 }, { s: Symbol('s') }, { c: new (class Thing {})() }];

/** The text (or error) of `make`. */
function textOf(make: () => string): string | Error {
  try {
    return make();
  } catch (err) {
    return err as Error;
  }
}

function alike(got: string | Error, want: string | Error): void {
  if (want instanceof Error) {
    assert.ok(got instanceof Error, 'refused as the object form refuses it');
    assert.equal(got.message, want.message);
  } else assert.equal(got, want);
}

function same(state: CompiledState, context: Record<string, unknown>, input: unknown): void {
  alike(
    textOf(() => stepStateText(state, context, input)),
    textOf(() => storedMachineJson(persistedStepState(state, context, input))),
  );
}

describe('stepStateText: the stored text of a compiled step or wait state', () => {
  const stepState = compiled.states.get('first "one"')!;
  const waitState = compiled.states.get('wait')!;

  it("is storedMachineJson's text of the persisted snapshot, for every context and step input", () => {
    for (const state of [stepState, waitState])
      for (const c of [...values, ...refused]) {
        const context = (typeof c === 'object' && c !== null && !Array.isArray(c) ? c : { c }) as Record<
          string,
          unknown
        >;
        same(state, context, undefined);
        for (const input of [...values, ...refused]) same(state, { n: 1 }, input);
      }
  });

  it("is storedMachineJson's text of a final snapshot, for every output and context", () => {
    const same = (output: unknown, context: Record<string, unknown>) => {
      const persisted = { status: 'done', output, value: 'end', historyValue: {}, context, children: {} };
      alike(
        textOf(() => doneStateText('end', output, context, () => persisted)),
        textOf(() => storedMachineJson(persisted)),
      );
    };
    for (const v of [...values, ...refused]) {
      same(v, { n: 1 });
      same(
        1,
        (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : { v }) as Record<string, unknown>,
      );
    }
  });

  it('counts the nesting limit from the snapshot root, as the object form does', () => {
    // The context is one level below the root, the input four: the deepest accepted differ.
    assert.doesNotThrow(() => stepStateText(stepState, nested(LIMIT - 1), undefined));
    assert.throws(() => stepStateText(stepState, nested(LIMIT), undefined), {
      code: 'UNSERIALIZABLE_SNAPSHOT',
    });
    assert.doesNotThrow(() => stepStateText(stepState, {}, nested(LIMIT - 4)));
    assert.throws(() => stepStateText(stepState, {}, nested(LIMIT - 3)), { code: 'UNSERIALIZABLE_SNAPSHOT' });
  });
});
