// The Client refuses bad input (an unknown machine, a value it cannot store, bad options) before
// it writes anything, on both stores. Records that reached the store broken, set aside by the
// worker: test/redis/brokenRecords.test.ts.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { UnknownMachineError, ValidationError, defineJob, type Client } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

const job = defineJob({ name: 'ok', work: ({ input }: { input: unknown }) => input });

async function refuses(
  h: AnyStoreWorld,
  attempt: () => Promise<unknown>,
  check: (err: any) => void,
): Promise<void> {
  await assert.rejects(attempt, (err: any) => {
    check(err);
    return true;
  });
  assert.deepEqual(await h.storedKeys(), [], 'nothing was written to the store');
}

describeOnEachStore('bad input', (world) => {
  let h: AnyStoreWorld;
  let client: Client;
  afterEach(async () => h.close());

  const fresh = () => {
    h = world();
    client = h.client({ jobs: [job] });
  };

  it('refuses an unknown machine with UnknownMachineError naming it', async () => {
    fresh();
    await refuses(
      h,
      () => client.enqueue('nope', {}),
      (err) => {
        assert.ok(err instanceof UnknownMachineError);
        assert.equal(err.code, 'UNKNOWN_MACHINE');
        assert.equal(err.machine, 'nope');
        assert.equal(err.field, 'machine');
        assert.match(err.message, /nope/);
      },
    );
  });

  it('refuses a machine that no supervisor has published when the client has no definitions', async () => {
    fresh();
    const bare = h.client();
    await refuses(
      h,
      () => bare.enqueue('ok', {}),
      (err) => assert.ok(err instanceof UnknownMachineError),
    );
  });

  it('refuses input the value codec cannot store, naming its path: a class instance, a cycle, a function', async () => {
    fresh();
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    class Money {
      cents = 1;
    }
    const cases: [unknown, RegExp][] = [
      [{ order: { price: new Money() } }, /class instance \(Money\) at input\.order\.price$/],
      [cyclic, /circular reference at input\.self$/],
      [() => 1, /a function at input$/],
    ];
    for (const [input, where] of cases) {
      await refuses(
        h,
        () => client.enqueue('ok', input),
        (err) => {
          assert.ok(err instanceof ValidationError, String(err));
          assert.equal(err.code, 'INVALID_INPUT');
          assert.equal(err.field, 'input');
          assert.match(err.message, /^input of 'ok' cannot be stored: /);
          assert.match(err.message, where);
        },
      );
    }
  });

  it('refuses a payload over 1 MiB by default, naming its size', async () => {
    fresh();
    const big = { blob: 'x'.repeat(1024 * 1024) };
    await refuses(
      h,
      () => client.enqueue('ok', big),
      (err) => {
        assert.ok(err instanceof ValidationError);
        assert.equal(err.field, 'input');
        assert.match(err.message, /over the 1048576-byte limit/);
      },
    );
    // Just under the limit is fine.
    const id = await client.enqueue('ok', { blob: 'x'.repeat(1024 * 1024 - 20) });
    assert.ok(id);
  });

  it('refuses input nested deeper than 1000 levels, which a worker could not store again', async () => {
    fresh();
    const deep = (n: number): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < n; i++) v = [v];
      return v;
    };
    await refuses(
      h,
      () => client.enqueue('ok', deep(1001)),
      (err) => {
        assert.ok(err instanceof ValidationError, String(err));
        assert.equal(err.field, 'input');
        assert.match(err.message, /nests deeper than 1000 levels/);
      },
    );
    // 1000 levels are fine, and so is a string full of brackets.
    assert.ok(await client.enqueue('ok', deep(1000)));
    assert.ok(await client.enqueue('ok', { text: '['.repeat(5000) }));
  });

  it('refuses an invalid priority, delayMs, maxAttempts, timeoutMs, idempotencyKey or queue, naming the field', async () => {
    fresh();
    const cases: [Record<string, unknown>, string][] = [
      [{ priority: 'urgent' }, 'priority'],
      [{ priority: 0 }, 'priority'],
      [{ delayMs: -1 }, 'delayMs'],
      [{ delayMs: Number.NaN }, 'delayMs'],
      [{ delayMs: '100' }, 'delayMs'],
      [{ delayMs: Infinity }, 'delayMs'],
      [{ maxAttempts: 0 }, 'maxAttempts'],
      [{ maxAttempts: 1.5 }, 'maxAttempts'],
      [{ timeoutMs: 0 }, 'timeoutMs'],
      [{ idempotencyKey: '' }, 'idempotencyKey'],
      [{ queue: 'bad queue!' }, 'queue'],
    ];
    for (const [options, field] of cases) {
      await refuses(
        h,
        () => client.enqueue('ok', {}, options),
        (err) => {
          assert.ok(err instanceof ValidationError, `${JSON.stringify(options)}: ${String(err)}`);
          assert.equal(err.field, field, JSON.stringify(options));
        },
      );
    }
  });

  it("refuses a parentId option: children come from fanOut only, never attached to another job's tree", async () => {
    fresh();
    const attach = { parentId: '01ARZ3NDEKTSV4RRFFQ69G5FAV' } as any;
    const check = (err: any) => {
      assert.ok(err instanceof ValidationError, String(err));
      assert.equal(err.code, 'INVALID_INPUT');
      assert.equal(err.field, 'parentId');
      assert.match(err.message, /parentId/);
      return true;
    };
    await refuses(h, () => client.enqueue('ok', {}, attach), check);
    await refuses(h, () => client.enqueueMany([{ machine: 'ok', input: 1, options: attach }]), check);

    // Against a job that exists: it gains no child.
    const parent = await client.enqueue('ok', {});
    await assert.rejects(client.enqueue('ok', {}, { parentId: parent } as any), check);
    assert.deepEqual((await client.list({ parentId: parent })).jobs, []);
    assert.equal((await client.list({})).jobs.length, 1);
  });

  it('writes nothing of a batch when one item is bad', async () => {
    fresh();
    await refuses(
      h,
      () =>
        client.enqueueMany([
          { machine: 'ok', input: 1 },
          { machine: 'ok', input: 2, options: { priority: 'nope' as any } },
        ]),
      (err) => {
        // The refused item is named: its place in the batch, and its field within it.
        assert.equal(err.field, 'priority');
        assert.equal(err.index, 1);
        assert.match(err.message, /^item 1: options\.priority /);
      },
    );
  });
});
