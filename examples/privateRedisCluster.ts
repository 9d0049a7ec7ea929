// A private Redis Cluster on loopback (no persistence), for the tests (test/support/redisCluster.ts),
// the chaos run and the bench: `masters` nodes with `replicas` replicas each, made with
// `redis-cli --cluster create`, ready once every node reports cluster_state:ok and every replica
// has synced with its master.
//
// Each node is a spawnRedisServer (privateRedis.ts) with cluster mode on; its cluster bus listens
// on port + 10000, so a port is taken only when both are free.

import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { spawnRedisServer, type RedisServer } from './privateRedis.js';

const run = promisify(execFile);

export interface RedisClusterNode {
  port: number;
  server: RedisServer;
}

export interface PrivateRedisCluster {
  /** Every node, masters first as `redis-cli --cluster create` was given them. */
  readonly nodes: readonly RedisClusterNode[];
  /** host:port of every node: what RedisStore's `cluster.nodes` and `--redis-cluster` take. */
  readonly seeds: readonly { host: string; port: number }[];
  /** The nodes serving slots now (after a failover, a promoted replica is among them). */
  masters(): Promise<{ host: string; port: number }[]>;
  /** Kills one node at once (SIGKILL), as a crashed host; the others stay up. */
  kill(port: number): Promise<void>;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, HOST, () => srv.close(() => resolve(true)));
  });
}

/** A port P in 20000..49999 with P and its bus port P + 10000 both free. */
async function freeClusterPort(taken: Set<number>): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const p = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.has(p) || taken.has(p + 10_000) || taken.has(p - 10_000)) continue;
    if ((await portFree(p)) && (await portFree(p + 10_000))) {
      taken.add(p);
      return p;
    }
  }
  throw new Error('no free port pair (P, P + 10000) for a cluster node');
}

/**
 * Polls every node until it reports cluster_state:ok and knows all slots, and every replica has
 * synced with its master (within `timeoutMs`).
 */
async function untilClusterOk(ports: readonly number[], timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (const port of ports) {
    const conn = new Redis({ host: HOST, port, lazyConnect: true, maxRetriesPerRequest: 1 });
    conn.on('error', () => {});
    try {
      await conn.connect();
      for (;;) {
        const info = String(await conn.call('CLUSTER', 'INFO'));
        if (info.includes('cluster_state:ok') && info.includes('cluster_slots_assigned:16384')) break;
        if (Date.now() > end) throw new Error(`cluster node ${port} not ready: ${info.split('\r\n')[0]}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // A replica is ready once its first sync is done. Until then it holds none of the data, and
      // Redis refuses to promote it: a replica that never had a link counts as disconnected since
      // ever, past cluster-replica-validity-factor ("Currently unable to failover: Disconnected
      // from master for longer than allowed"), so a master killed before it would never be
      // replaced (chaos T16's cut variant saw exactly that).
      for (;;) {
        const repl = await conn.info('replication');
        if (!repl.includes('role:slave') || repl.includes('master_link_status:up')) break;
        if (Date.now() > end) throw new Error(`cluster replica ${port} not synced with its master`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      conn.disconnect();
    }
  }
}

/**
 * A one-shard cluster (the bench's cluster-overhead row): `redis-cli --cluster create` wants at
 * least 3 masters, so the one node takes every slot itself.
 */
async function ownAllSlots(port: number): Promise<void> {
  const conn = new Redis({ host: HOST, port, maxRetriesPerRequest: 1 });
  conn.on('error', () => {});
  try {
    await conn.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
  } finally {
    conn.disconnect();
  }
}

export async function startRedisCluster(
  options: { masters?: number; replicas?: number; extraArgs?: string[] } = {},
): Promise<PrivateRedisCluster> {
  const masters = options.masters ?? 3;
  const replicas = options.replicas ?? 0;
  const count = masters * (1 + replicas);
  const taken = new Set<number>();
  const nodes: RedisClusterNode[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.server.stop('SIGKILL')));
  };
  try {
    for (let i = 0; i < count; i++) {
      const port = await freeClusterPort(taken);
      const server = await spawnRedisServer({
        port,
        extraArgs: [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          // A lone node does not know its own address until a peer meets it (CLUSTER SLOTS
          // would name host ''): announce it.
          '--cluster-announce-ip',
          HOST,
          '--cluster-node-timeout',
          '2000',
          // A replica's first sync at once, not after the diskless-sync delay (5 s by default):
          // the cluster is ready only once every replica has synced (untilClusterOk).
          '--repl-diskless-sync-delay',
          '0',
          ...(options.extraArgs ?? []),
        ],
      });
      nodes.push({ port, server });
    }
    if (masters === 1 && replicas === 0) await ownAllSlots(nodes[0]!.port);
    else
      await run('redis-cli', [
        '--cluster',
        'create',
        ...nodes.map((n) => `${HOST}:${n.port}`),
        '--cluster-replicas',
        String(replicas),
        '--cluster-yes',
      ]);
    await untilClusterOk(
      nodes.map((n) => n.port),
      20_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    nodes,
    seeds: nodes.map((n) => ({ host: HOST, port: n.port })),
    async masters() {
      const alive = nodes.find(
        (n) => n.server.process.exitCode === null && n.server.process.signalCode === null,
      );
      if (!alive) return [];
      const conn = new Redis({ host: HOST, port: alive.port, maxRetriesPerRequest: 1 });
      conn.on('error', () => {});
      try {
        const shards = (await conn.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
        const seen = new Map<number, { host: string; port: number }>();
        for (const [, , [host, port]] of shards) seen.set(port, { host, port });
        return [...seen.values()];
      } finally {
        conn.disconnect();
      }
    },
    async kill(port: number) {
      const node = nodes.find((n) => n.port === port);
      if (!node) throw new Error(`no cluster node on port ${port}`);
      await node.server.stop('SIGKILL');
    },
    stop,
  };
}
