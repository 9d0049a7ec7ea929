import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assign, enqueueActions, fromPromise, setup, spawnChild } from 'xstate';
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

  /** Asserts definePipeline refuses `machine` with INVALID_PIPELINE, its message matching `why`. */
  function refused(machine: unknown, why: RegExp): void {
    assert.throws(
      () => definePipeline({ name: 'bad', machine: machine as never }),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, 'INVALID_PIPELINE', err.message);
        assert.match(err.message, why);
        return true;
      },
    );
  }

  it("refuses spawnChild('ghost') of a name not registered in setup({ actors }), wherever the action is", () => {
    const actors = { work: step(async () => 1) };
    const ghost = spawnChild('ghost' as never, { id: 'g' }) as never;
    // entry, exit, an event's transition, an `always` transition, an initial transition, the root
    refused(
      setup({ actors }).createMachine({ initial: 'a', states: { a: { entry: ghost } } }),
      /state '\(machine\)\.a' spawns 'ghost', which is not registered in setup\(\{ actors \}\)/,
    );
    refused(setup({ actors }).createMachine({ initial: 'a', states: { a: { exit: ghost } } }), /'ghost'/);
    refused(
      setup({ actors }).createMachine({ initial: 'a', states: { a: { on: { GO: { actions: ghost } } } } }),
      /'ghost'/,
    );
    refused(
      setup({ actors }).createMachine({
        initial: 'a',
        states: { a: { always: { target: 'b', actions: ghost } }, b: {} },
      }),
      /'ghost'/,
    );
    refused(setup({ actors }).createMachine({ entry: ghost }), /'ghost'/);
    refused(
      setup({ actors }).createMachine({
        initial: 'a',
        states: { a: { always: { target: 'b', actions: spawnChild(fromPromise(async () => 1)) } }, b: {} },
      }),
      /spawns inline actor logic/,
    );
  });

  it('refuses a named action from setup({ actions }) that spawns an unregistered name or inline logic', () => {
    const actors = { work: step(async () => 1) };
    refused(
      setup({ actors, actions: { summon: spawnChild('ghost' as never) } }).createMachine({
        initial: 'a',
        states: { a: { entry: 'summon' } },
      }),
      /action 'summon' spawns 'ghost'/,
    );
    refused(
      setup({ actors, actions: { summon: spawnChild(fromPromise(async () => 1)) } }).createMachine({
        initial: 'a',
        states: { a: { entry: { type: 'summon' } } },
      }),
      /action 'summon' spawns inline actor logic/,
    );
  });

  it('checks the machines registered in setup({ actors }) by the same rules', () => {
    const child = setup({}).createMachine({
      initial: 'x',
      states: { x: { entry: spawnChild('ghost' as never) } },
    });
    refused(
      setup({ actors: { child } }).createMachine({
        initial: 'a',
        states: { a: { invoke: { id: 'c', src: 'child' } } },
      }),
      /actor 'child'.*spawns 'ghost'/,
    );
  });

  it('refuses a spawn its source shows in an assign, an enqueueActions or the context: a ghost name or inline logic', () => {
    const actors = { work: step(async () => 1) };
    const m = setup({ types: { context: {} as { ref: unknown } }, actors });
    refused(
      m.createMachine({
        context: { ref: null },
        initial: 'a',
        states: { a: { entry: assign({ ref: ({ spawn }) => spawn('ghost' as string as 'work') }) } },
      }),
      /state '\(machine\)\.a' spawns 'ghost' in an assign, which is not registered/,
    );
    refused(
      m.createMachine({
        context: { ref: null },
        initial: 'a',
        states: {
          a: { on: { GO: { actions: assign(({ spawn }) => ({ ref: spawn(fromPromise(async () => 1)) })) } } },
        },
      }),
      /spawns inline actor logic in an assign/,
    );
    refused(
      m.createMachine({
        context: { ref: null },
        initial: 'a',
        states: { a: { exit: enqueueActions(({ enqueue }) => enqueue.spawnChild('ghost' as never)) } },
      }),
      /spawns 'ghost' in an enqueueActions/,
    );
    refused(
      m.createMachine({ context: ({ spawn }) => ({ ref: spawn('ghost' as string as 'work') }) }),
      /spawns 'ghost' in the context/,
    );
    refused(
      setup({
        types: { context: {} as { ref: unknown } },
        actors,
        actions: { keep: assign({ ref: ({ spawn }) => spawn('ghost' as string as 'work') }) },
      }).createMachine({ context: { ref: null } }),
      /action 'keep' spawns 'ghost' in an assign/,
    );
  });

  it('accepts spawns of registered names, and enqueueActions (checked when they run)', () => {
    const actors = { work: step(async () => 1) };
    const machine = setup({
      types: { context: {} as { ref: unknown } },
      actors,
      actions: { summon: spawnChild('work', { id: 'w2' }) },
    }).createMachine({
      context: { ref: null },
      entry: [spawnChild('work', { id: 'w1' }), 'summon'],
      initial: 'a',
      states: {
        a: {
          entry: [
            enqueueActions(({ enqueue }) => enqueue.spawnChild('work', { id: 'w3' })),
            assign({ ref: ({ spawn }) => spawn('work', { id: 'w4' }) }),
          ],
        },
      },
    });
    definePipeline({ name: 'fine', machine });
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
