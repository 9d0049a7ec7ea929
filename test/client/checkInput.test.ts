// The input check itself, without a store: any Standard Schema (not only zod's), the paths it
// names, and definitions refusing an `input` that is not a schema.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { DefinitionError, InputSchemaError, defineJob, definePipeline } from '../../src/index.js';
import { checkInput, issuePath } from '../../src/runtime/checkInput.js';
import { setup } from 'xstate';

/** A hand-written Standard Schema (as valibot or arktype would give): positive numbers, async. */
const positive: StandardSchemaV1<number, number> = {
  '~standard': {
    version: 1,
    vendor: 'hand',
    validate: async (v) =>
      typeof v === 'number' && v > 0 ? { value: v } : { issues: [{ message: 'must be a positive number' }] },
  },
};

describe('checkInput', () => {
  it('takes any Standard Schema, async ones included, and names the root as input', async () => {
    assert.deepEqual(await checkInput('count', positive, 3), { value: 3 });
    await assert.rejects(Promise.resolve(checkInput('count', positive, -1)), (err: unknown) => {
      assert.ok(err instanceof InputSchemaError);
      assert.equal(err.code, 'INVALID_INPUT');
      assert.equal(err.machine, 'count');
      assert.equal(err.field, 'input');
      assert.equal(
        err.message,
        "input of 'count' does not match its schema: input: must be a positive number",
      );
      return true;
    });
  });

  it('is synchronous for a synchronous schema, and passes a Promise input through untouched', () => {
    const sync: StandardSchemaV1 = {
      '~standard': { version: 1, vendor: 'x', validate: (v) => ({ value: v }) },
    };
    const p = Promise.resolve(1);
    const out = checkInput('m', sync, p);
    assert.ok(!(out instanceof Promise));
    assert.equal(out.value, p);
    assert.equal((checkInput('m', undefined, p) as { value: unknown }).value, p);
  });

  it('writes each path as a reader would', () => {
    assert.equal(issuePath(undefined), 'input');
    assert.equal(issuePath(['user', 'tags', 2]), 'input.user.tags[2]');
    assert.equal(issuePath([{ key: 'a b' }, { key: '3' }, Symbol('s')]), 'input["a b"][3][Symbol(s)]');
  });

  it('defineJob and definePipeline refuse an input option that is not a Standard Schema', () => {
    const notSchema = { parse: () => 1 } as never;
    assert.throws(
      () => defineJob({ name: 'j', input: notSchema, work: () => 1 }),
      (err: unknown) => err instanceof DefinitionError && err.field === 'input' && err.machine === 'j',
    );
    assert.throws(
      () => definePipeline({ name: 'p', machine: setup({}).createMachine({}), input: notSchema }),
      (err: unknown) => err instanceof DefinitionError && err.field === 'input',
    );
  });
});
