import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setup, type AnyActor } from 'xstate';
import { MachinistError, definePipeline, step } from '../../src/index.js';
import {
  TESTED_XSTATE,
  assertXstateSupported,
  checkXstateInternals,
  startProbe,
} from '../../src/pipeline/xstateCompat.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

const installed = (createRequire(import.meta.url)('xstate/package.json') as { version: string }).version;

/** A probe actor whose internals `mangle` changes before the check reads them (its clock sets
 * no real timers, so one left unstoppable holds nothing). */
function mangled(mangle: (actor: AnyActor) => void): AnyActor {
  const actor = startProbe();
  mangle(actor);
  return actor;
}

function refusesNaming(fn: () => void, what: RegExp) {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof MachinistError);
    assert.equal(err.code, 'XSTATE_UNSUPPORTED');
    assert.match(err.message, /xstate 9\.9\.9/, 'names the installed version');
    assert.ok(err.message.includes(TESTED_XSTATE), 'names the tested range');
    assert.match(err.message, what);
    return true;
  });
}

describe('XState compatibility check', () => {
  it('states the tested xstate range once: the peer dependency is the range the check names', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      peerDependencies?: Record<string, string>;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    assert.equal(pkg.peerDependencies?.xstate, TESTED_XSTATE);
    assert.equal(
      pkg.dependencies?.xstate,
      undefined,
      'not a dependency: the app and Machinist share one copy',
    );
    assert.ok(pkg.devDependencies?.xstate, "kept in devDependencies for the repo's own tests");
  });

  it('passes on the installed xstate', () => {
    assert.doesNotThrow(() => assertXstateSupported());
    const actor = startProbe();
    try {
      assert.doesNotThrow(() => checkXstateInternals(actor, installed));
    } finally {
      actor.stop();
    }
  });

  it('refuses, naming the xstate version, when the system has no scheduled events', () => {
    const actor = mangled((a) => {
      const system = a.system as unknown as { getSnapshot: () => unknown };
      system.getSnapshot = () => ({ scheduled: {} });
    });
    refusesNaming(() => checkXstateInternals(actor, '9.9.9'), /_scheduledEvents/);
  });

  it('refuses when the system has no scheduler to restore timers with', () => {
    const actor = mangled((a) => {
      (a.system as unknown as { scheduler: unknown }).scheduler = undefined;
    });
    refusesNaming(() => checkXstateInternals(actor, '9.9.9'), /scheduler/);
  });

  it('refuses when a scheduled event lacks the fields a stored timer is made of', () => {
    const actor = mangled((a) => {
      const system = a.system as unknown as { getSnapshot: () => { _scheduledEvents: object } };
      const real = system.getSnapshot.bind(system);
      system.getSnapshot = () => {
        const events = Object.values(real()._scheduledEvents) as object[];
        return { _scheduledEvents: Object.fromEntries(events.map((e, i) => [i, { ...e, startedAt: 'x' }])) };
      };
    });
    refusesNaming(() => checkXstateInternals(actor, '9.9.9'), /startedAt/);
  });

  it('refuses when an invoked actor does not know its parent', () => {
    const actor = mangled((a) => {
      const children = (a.getSnapshot() as { children: Record<string, object> }).children;
      for (const c of Object.values(children)) (c as { _parent?: unknown })._parent = undefined;
    });
    refusesNaming(() => checkXstateInternals(actor, '9.9.9'), /_parent/);
  });

  it('refuses when the persisted snapshot is not laid out as the compiled runner writes it', () => {
    const actor = mangled((a) => {
      const real = a.getPersistedSnapshot.bind(a);
      a.getPersistedSnapshot = () => ({ ...(real() as object), historyValue: undefined }) as never;
    });
    refusesNaming(() => checkXstateInternals(actor, '9.9.9'), /persisted snapshot/);
  });

  describe('at Supervisor.start()', () => {
    let redis: TestRedis;
    let h: Harness;
    before(async () => {
      redis = await startRedis();
      h = new Harness(redis);
    });
    after(async () => {
      await h.close();
      await redis.stop();
    });

    it('a supervisor with a pipeline on an unsupported xstate refuses to start, writing nothing', async () => {
      const machine = setup({ actors: { s: step(async () => 1) } }).createMachine({
        initial: 'a',
        states: { a: { invoke: { id: 's', src: 's', onDone: 'b' } }, b: { type: 'final' } },
      });
      const real = definePipeline({ name: 'p', machine });
      const broken = mangled((a) => {
        (a.system as unknown as { scheduler: unknown }).scheduler = undefined;
      });
      // The definition's preflight is what start() runs; pointed at a broken actor, as on an
      // xstate whose internals moved.
      const onOldXstate = { ...real, preflight: () => checkXstateInternals(broken, '9.9.9') };
      const sup = h.supervisor({ jobs: [onOldXstate] });
      await assert.rejects(sup.start(), { code: 'XSTATE_UNSUPPORTED', message: /xstate 9\.9\.9/ });
      assert.deepEqual(await h.keys(), [], 'refused before registering anything');
      // The real check passes: the same supervisor starts once the definition is the real one.
      await h.supervisor({ jobs: [real] }).start();
    });
  });
});
