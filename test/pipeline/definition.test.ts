import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fromPromise, setup, spawnChild } from 'xstate';
import { DefinitionError, definePipeline, step } from '../../src/index.js';

describe('definePipeline registration checks', () => {
  it('refuses an invoke of inline actor logic, saying how to register it', () => {
    const machine = setup({}).createMachine({
      initial: 'a',
      states: { a: { invoke: { id: 'x', src: fromPromise(async () => 1) } as never } },
    });
    assert.throws(
      () => definePipeline({ name: 'inline', machine }),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, 'INVALID_PIPELINE');
        assert.match(err.message, /setup\(\{ actors/);
        return true;
      },
    );
  });

  it('refuses an invoke without an explicit id', () => {
    const machine = setup({ actors: { work: step(async () => 1) } }).createMachine({
      initial: 'a',
      states: { a: { invoke: { src: 'work' } } },
    });
    assert.throws(() => definePipeline({ name: 'noid', machine }), {
      code: 'INVALID_PIPELINE',
      message: /without an explicit id/,
    });
  });

  it('refuses spawning inline logic from an action', () => {
    const machine = setup({}).createMachine({
      initial: 'a',
      states: { a: { entry: spawnChild(fromPromise(async () => 1)) } },
    });
    assert.throws(() => definePipeline({ name: 'spawny', machine }), {
      code: 'INVALID_PIPELINE',
      message: /spawns inline actor logic/,
    });
  });

  it('refuses a bad name, version or timeout with INVALID_DEFINITION and the field named', () => {
    const machine = setup({}).createMachine({ initial: 'a', states: { a: { type: 'final' } } });
    const refused = (field: string, message: RegExp) => (err: unknown) => {
      assert.ok(err instanceof DefinitionError);
      assert.equal(err.code, 'INVALID_DEFINITION');
      assert.equal(err.field, field);
      assert.match(err.message, message);
      return true;
    };
    assert.throws(
      () => definePipeline({ name: '', machine }),
      refused('name', /name must start with a letter/),
    );
    assert.throws(
      () => definePipeline({ name: 'v', version: 0, machine }),
      refused('version', /version must be an integer >= 1/),
    );
    assert.throws(
      () => definePipeline({ name: 't', timeoutMs: -1, machine }),
      refused('timeoutMs', /timeoutMs must be a number > 0/),
    );
    assert.throws(
      () => definePipeline({ name: 'm', machine: {} as never }),
      refused('machine', /must be an XState v5 machine/),
    );
  });

  it('accepts a machine whose invokes are registered by name with ids, and keeps its definition for charts', () => {
    const machine = setup({ actors: { work: step(async () => 1) } }).createMachine({
      id: 'ok',
      initial: 'a',
      states: { a: { invoke: { id: 'w', src: 'work', onDone: 'b' } }, b: { type: 'final' } },
    });
    const def = definePipeline({ name: 'ok', machine });
    assert.equal(def.kind, 'pipeline');
    assert.ok(JSON.stringify(def.definitionJson).includes('"b"'));
  });
});
