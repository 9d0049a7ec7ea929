// Which machines compile (compileSteps.ts): a chain of step states does; every construct the
// compiled runtime does not reproduce exactly is refused, naming it. Whether a compiled run
// stores what XState would is behaviour.test.ts's part.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assign, setup, type AnyStateMachine } from 'xstate';
import { explainNotCompiled, step } from '../../src/index.js';
import { Probe, cases } from './behaviourCases.js';
import { waitCases } from './waitCases.js';
import { waitEventCases } from './waitEventCases.js';
import { stepTimerCases } from './stepTimerCases.js';
import { guardedAfterCases } from './guardedAfterCases.js';
import { stepEventCases } from './stepEventCases.js';

describe('compileSteps', () => {
  it('compiles step-only machines and refuses every construct it does not reproduce', () => {
    for (const c of cases.filter((c) => c.compiles))
      assert.equal(explainNotCompiled(c.machine(new Probe())), null, c.name);
    const work = step(async () => 1);
    const refused = (config: object, extra: object = {}): string | null =>
      explainNotCompiled(
        setup({ actors: { work }, ...extra }).createMachine(config as never) as unknown as AnyStateMachine,
      );
    const inv = { id: 'w', src: 'work', onDone: 'end' };
    const end = { type: 'final' };
    assert.equal(
      refused({ initial: 'a', states: { a: { invoke: inv, on: { GO: 'end' } }, end } }),
      null,
      'on beside an invoke (an event taken while the step runs)',
    );
    for (const c of stepEventCases) assert.equal(explainNotCompiled(c.machine(new Probe())), null, c.name);
    assert.match(
      refused({ initial: 'a', states: { a: { invoke: inv, on: { '*': 'end' } }, end } })!,
      /wildcard/,
    );
    assert.match(
      refused({ initial: 'a', states: { a: { invoke: inv, on: { GO: 'a' } }, end } })!,
      /its own state/,
      'an event that re-enters the step state (a restarted step)',
    );
    assert.match(refused({ initial: 'a', states: { a: { invoke: inv, entry: () => {} }, end } })!, /entry/);
    assert.match(
      refused({
        id: 'm',
        initial: 'a',
        states: { a: { initial: 'x', states: { x: { invoke: { ...inv, onDone: '#m.end' } } } }, end },
      })!,
      /compound state/,
    );
    assert.match(
      refused({
        initial: 'a',
        states: { a: { invoke: { ...inv, onDone: { target: 'end', actions: () => {} } } }, end },
      })!,
      /other than assign/,
    );
    assert.match(
      refused({
        initial: 'a',
        states: { a: { invoke: { ...inv, onDone: { target: 'end', guard: () => true } } }, end },
      })!,
      /unguarded/,
    );
    assert.match(refused({ initial: 'a', states: { a: {}, end } })!, /invokes 0/);
  });

  it('compiles a step with a timeout (after delays beside its invoke) and refuses what it does not reproduce', () => {
    for (const c of stepTimerCases) assert.equal(explainNotCompiled(c.machine(new Probe())), null, c.name);
    const work = step(async () => 1);
    const refused = (config: object, extra: object = {}): string | null =>
      explainNotCompiled(
        setup({ actors: { work }, ...extra }).createMachine(config as never) as unknown as AnyStateMachine,
      );
    const inv = { id: 'w', src: 'work', onDone: 'end' };
    const end = { type: 'final' };
    const late = { invoke: { id: 'l', src: 'work', onDone: 'end' } };
    assert.equal(
      refused({ initial: 'a', states: { a: { invoke: inv, after: { 100: 'late' } }, late, end } }),
      null,
    );
    assert.equal(
      refused(
        {
          initial: 'a',
          states: { a: { invoke: inv, after: { d: 'end', 200: { target: 'late' } } }, late, end },
        },
        { delays: { d: () => 5 } },
      ),
      null,
      'two delays, one named',
    );
    assert.equal(
      refused({
        initial: 'a',
        states: { a: { invoke: inv, after: { 100: 'end' }, on: { GO: 'end' } }, end },
      }),
      null,
      'a step with a timeout and events',
    );
    assert.match(
      refused({ initial: 'a', states: { a: { invoke: inv, after: { 100: 'end' }, entry: () => {} }, end } })!,
      /entry\/exit/,
    );
    assert.match(
      refused({
        initial: 'a',
        states: { a: { invoke: inv, after: { 100: 'end' }, exit: assign({}) }, end },
      })!,
      /entry\/exit/,
    );
    assert.equal(
      refused({
        initial: 'a',
        states: { a: { invoke: inv, after: { 100: { target: 'end', guard: () => true } } }, end },
      }),
      null,
      'an after list whose every transition is guarded (none enabled: the step runs on, its timer spent)',
    );
    for (const c of guardedAfterCases) assert.equal(explainNotCompiled(c.machine(new Probe())), null, c.name);
    assert.match(
      refused({ initial: 'a', states: { a: { invoke: inv, after: { 100: 'a' } }, end } })!,
      /its own state/,
      'a timeout that re-enters its own state (a restarted step)',
    );
    assert.match(
      refused({ initial: 'a', states: { a: { invoke: inv, after: { nope: 'end' } }, end } })!,
      /names no delay/,
    );
    assert.match(
      refused({ initial: 'a', states: { a: { invoke: inv, after: { 100: 'end' }, always: 'end' }, end } })!,
      /always/,
    );
    assert.match(
      refused({
        initial: 'a',
        states: { a: { invoke: [inv, { ...inv, id: 'v' }], after: { 100: 'end' } }, end },
      })!,
      /invokes 2/,
    );
  });

  it('compiles a state that only waits on after delays and events, and refuses every other use of after and on', () => {
    for (const c of [...waitCases, ...waitEventCases])
      assert.equal(explainNotCompiled(c.machine(new Probe())), null, c.name);
    const refused = (config: object, extra: object = {}): string | null =>
      explainNotCompiled(setup({ ...extra }).createMachine(config as never) as unknown as AnyStateMachine);
    const end = { type: 'final' };
    assert.equal(refused({ initial: 'a', states: { a: { after: { 100: 'end' } }, end } }), null);
    assert.equal(
      refused({ initial: 'a', states: { a: { after: { d: 'end' } }, end } }, { delays: { d: () => 5 } }),
      null,
    );
    assert.equal(refused({ initial: 'a', states: { a: { after: { 100: 'end', 200: 'end' } }, end } }), null);
    assert.equal(
      refused({ initial: 'a', states: { a: { after: { 100: 'end' }, on: { GO: 'end' } }, end } }),
      null,
    );
    assert.equal(refused({ initial: 'a', states: { a: { on: { GO: 'end' } }, end } }), null);
    assert.equal(
      refused({ initial: 'a', states: { a: { on: { GO: { target: 'end', guard: () => true } } }, end } }),
      null,
      'an event’s list may end guarded (none enabled: the event is ignored)',
    );
    assert.match(
      refused({ initial: 'a', states: { a: { after: { 100: 'end' }, entry: () => {} }, end } })!,
      /entry\/exit/,
    );
    assert.match(
      refused({ initial: 'a', states: { a: { on: { GO: 'end' }, exit: () => {} }, end } })!,
      /entry\/exit/,
    );
    assert.match(
      refused({
        initial: 'a',
        states: { a: { after: { 100: 'end', 200: { target: 'end', guard: () => true } } }, end },
      })!,
      /unguarded/,
    );
    assert.match(
      refused({ initial: 'a', states: { a: { after: { nope: 'end' } }, end } })!,
      /names no delay/,
    );
    assert.match(
      refused({ initial: 'a', states: { a: { after: { 100: 'end' }, always: { target: 'end' } }, end } })!,
      /always/,
    );
    assert.match(refused({ initial: 'a', states: { a: { on: { '*': 'end' } }, end } })!, /wildcard/);
    assert.match(refused({ initial: 'a', states: { a: { on: { 'GO.*': 'end' } }, end } })!, /wildcard/);
    assert.match(
      refused({ initial: 'a', states: { a: { on: { 'xstate.after.1.x.b': 'end' } }, end } })!,
      /an XState event/,
    );
    assert.equal(
      refused({
        initial: 'a',
        states: { a: { on: { GO: { actions: assign({}) } }, after: { 9: 'end' } }, end },
      }),
      null,
      'an event’s transition without a target (assigns in place)',
    );
    assert.match(
      refused({ initial: 'a', states: { a: { after: { 9: { actions: assign({}) } } }, end } })!,
      /target is not one top-level state/,
    );
    assert.match(refused({ initial: 'a', states: { a: { on: { GO: {} } }, end } })!, /forbidden/);
    assert.match(refused({ initial: 'a', states: { a: { on: { GO: 'a' } }, end } })!, /its own state/);
    assert.match(refused({ initial: 'a', after: { 100: '.a' }, states: { a: {} } })!, /after/);
    assert.match(
      refused({ initial: 'a', on: { GO: '.a' }, states: { a: { on: { X: 'a' } } } })!,
      /transitions/,
    );
  });
});
