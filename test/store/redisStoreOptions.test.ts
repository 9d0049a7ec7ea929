// A RedisStore refuses options that would silently break it, when it is made, before any
// connection is opened: an ioredis `keyPrefix` is added by the client to the keys a command names,
// but not to the keys a Lua script builds from them, so scripts would read and write two sets of
// keys. The store's own `prefix` is the way to share one Redis between deployments.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster } from 'ioredis';
import { RedisStore } from '../../src/index.js';

describe('RedisStore options', () => {
  it('refuses an ioredis keyPrefix, naming it and what to use instead', () => {
    assert.throws(() => new RedisStore({ url: 'redis://127.0.0.1:1', redis: { keyPrefix: 'app:' } }), {
      name: 'TypeError',
      message: /RedisStore: redis\.keyPrefix \('app:'\) is not supported .*use the store's `prefix` option/,
    });
  });

  it("refuses a cluster's keyPrefix (its own or its nodes'), given as options or on a ready Cluster", () => {
    const nodes = [{ host: '127.0.0.1', port: 1 }];
    assert.throws(() => new RedisStore({ cluster: { nodes, keyPrefix: 'app:' } }), {
      name: 'TypeError',
      message: /RedisStore: cluster\.keyPrefix \('app:'\) is not supported/,
    });
    assert.throws(() => new RedisStore({ cluster: { nodes, redisOptions: { keyPrefix: 'app:' } } }), {
      name: 'TypeError',
      message: /RedisStore: cluster\.redisOptions\.keyPrefix \('app:'\) is not supported/,
    });
    const ready = new Cluster(nodes, { lazyConnect: true, redisOptions: { keyPrefix: 'app:' } });
    assert.throws(() => new RedisStore({ cluster: ready }), { name: 'TypeError', message: /keyPrefix/ });
    ready.disconnect();
  });

  it('refuses a cluster given with a url or node options, and one with no nodes', () => {
    assert.throws(() => new RedisStore({ url: 'redis://127.0.0.1:1', cluster: { nodes: ['127.0.0.1:1'] } }), {
      name: 'TypeError',
      message: /either `cluster` or `url`\/`redis`, not both/,
    });
    assert.throws(() => new RedisStore({ cluster: { nodes: [] } }), {
      name: 'TypeError',
      message: /cluster\.nodes must list at least one node/,
    });
  });

  it('refuses a key prefix with characters a Redis key name here may not hold', () => {
    assert.throws(() => new RedisStore({ url: 'redis://127.0.0.1:1', prefix: 'a b' }), {
      name: 'TypeError',
      message: /invalid key prefix 'a b'/,
    });
  });
});
