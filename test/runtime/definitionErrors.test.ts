import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fromPromise, setup } from 'xstate';
import {
  DefinitionError,
  MachinistError,
  PipelineDefinitionError,
  defineJob,
  definePipeline,
  type DefineJobOptions,
} from '../../src/index.js';
import { Registry } from '../../src/runtime/registry.js';

const work = async () => null;
const machine = setup({}).createMachine({ initial: 'done', states: { done: { type: 'final' } } });

/** Asserts `fn` throws a MachinistError with `code`, naming `field` (and `machine` when given). */
function refuses(fn: () => unknown, code: string, ids: { field?: string; machine?: string }, text: RegExp) {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof MachinistError, `a MachinistError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (ids.field !== undefined) assert.equal(err.field, ids.field);
    if (ids.machine !== undefined) assert.equal(err.machine, ids.machine);
    assert.match(err.message, text);
    return true;
  });
}

describe('definition errors', () => {
  it('defineJob refuses a bad definition with DefinitionError (INVALID_DEFINITION) naming the field', () => {
    const bad = (o: Partial<DefineJobOptions<unknown, unknown, unknown>>) => () =>
      defineJob({ name: 'j', work, ...o });
    refuses(bad({ name: '1x' }), 'INVALID_DEFINITION', { field: 'name' }, /name must start with a letter/);
    refuses(bad({ work: 'no' as never }), 'INVALID_DEFINITION', { field: 'work', machine: 'j' }, /work/);
    refuses(bad({ load: 3 as never }), 'INVALID_DEFINITION', { field: 'load', machine: 'j' }, /load/);
    refuses(bad({ version: 0 }), 'INVALID_DEFINITION', { field: 'version', machine: 'j' }, /version/);
    refuses(bad({ timeoutMs: -1 }), 'INVALID_DEFINITION', { field: 'timeoutMs', machine: 'j' }, /timeoutMs/);
    refuses(
      bad({ retry: { maxAttempts: 0 } }),
      'INVALID_DEFINITION',
      { field: 'retry.maxAttempts', machine: 'j' },
      /retry\.maxAttempts/,
    );
    refuses(
      bad({ retry: { backoff: { type: 'fixed' } as never } }),
      'INVALID_DEFINITION',
      { field: 'retry.backoff.delayMs', machine: 'j' },
      /delayMs is required/,
    );
    assert.throws(
      bad({ version: 0 }),
      (err) => err instanceof DefinitionError && !(err instanceof TypeError),
    );
  });

  it('refuses a bad retry.retryLater or stallTimeoutMs naming the field, on jobs and pipelines', () => {
    const job = (o: Partial<DefineJobOptions<unknown, unknown, unknown>>) => () =>
      defineJob({ name: 'j', work, ...o });
    const later = (retryLater: unknown) => job({ retry: { retryLater: retryLater as never } });
    const field = (f: string) => ({ field: f, machine: 'j' });
    refuses(later(3), 'INVALID_DEFINITION', field('retry.retryLater'), /must be an object/);
    refuses(later({ growth: 0.5 }), 'INVALID_DEFINITION', field('retry.retryLater.growth'), />= 1/);
    refuses(later({ maxDelayMs: -1 }), 'INVALID_DEFINITION', field('retry.retryLater.maxDelayMs'), />= 0/);
    refuses(
      later({ maxRetries: 1.5 }),
      'INVALID_DEFINITION',
      field('retry.retryLater.maxRetries'),
      /integer/,
    );
    refuses(job({ stallTimeoutMs: 0 }), 'INVALID_DEFINITION', field('stallTimeoutMs'), /stallTimeoutMs/);
    refuses(
      () => definePipeline({ name: 'p', machine, stallTimeoutMs: 'soon' as never }),
      'INVALID_DEFINITION',
      { field: 'stallTimeoutMs', machine: 'p' },
      /stallTimeoutMs must be a number > 0/,
    );
    assert.doesNotThrow(later({ growth: 2, maxDelayMs: 60_000, maxRetries: 0 }));
  });

  it('definePipeline refuses bad options with DefinitionError naming the field', () => {
    refuses(
      () => definePipeline({ name: 'p', machine: {} as never }),
      'INVALID_DEFINITION',
      { field: 'machine', machine: 'p' },
      /must be an XState v5 machine/,
    );
    refuses(
      () => definePipeline({ name: 'p', machine, migrate: 1 as never }),
      'INVALID_DEFINITION',
      { field: 'migrate', machine: 'p' },
      /migrate must be a function/,
    );
    refuses(
      () => definePipeline({ name: 'p', machine, compile: 'yes' as never }),
      'INVALID_DEFINITION',
      { field: 'compile', machine: 'p' },
      /compile must be a boolean/,
    );
    refuses(
      () => definePipeline({ name: 'p', machine, retry: { backoff: { type: 'exponential', delayMs: -1 } } }),
      'INVALID_DEFINITION',
      { field: 'retry.backoff.delayMs', machine: 'p' },
      /retry\.backoff\.delayMs must be a number >= 0/,
    );
  });

  it('a machine definePipeline cannot persist is a PipelineDefinitionError, a MachinistError (INVALID_PIPELINE)', () => {
    const inline = setup({}).createMachine({
      initial: 'a',
      states: { a: { invoke: { id: 'x', src: fromPromise(async () => 1) } as never } },
    });
    assert.throws(
      () => definePipeline({ name: 'inline', machine: inline }),
      (err: unknown) => {
        assert.ok(err instanceof PipelineDefinitionError);
        assert.ok(err instanceof MachinistError);
        assert.equal(err.code, 'INVALID_PIPELINE');
        assert.equal(err.machine, 'inline');
        assert.equal(err.state, '(machine).a');
        return true;
      },
    );
  });

  it('a jobs list with something not defined, or a version twice, is refused with INVALID_DEFINITION', () => {
    refuses(() => new Registry([{} as never]), 'INVALID_DEFINITION', { field: 'jobs' }, /defineJob/);
    const a = defineJob({ name: 'twice', work });
    refuses(
      () => new Registry([a, defineJob({ name: 'twice', work })]),
      'INVALID_DEFINITION',
      { field: 'jobs', machine: 'twice' },
      /listed twice/,
    );
  });
});
