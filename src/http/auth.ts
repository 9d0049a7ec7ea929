// Bearer-token auth. Tokens come from the options or from MACHINIST_TOKENS (comma-separated);
// each carries scopes: `read` (GET routes and the live streams) and `write` (everything that
// changes a job). A token written `secret` has both; `secret:read` only reading, `secret:write`
// only writing (a producer that submits jobs and reads nothing else).
//
// Compared in constant time: every configured token is hashed once (SHA-256), the presented one
// is hashed, and the digests (equal length by construction) are compared with
// crypto.timingSafeEqual against EVERY configured token, so the time taken says nothing about
// which token, or how much of one, matched.

import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './errorReply.js';
import { CODE } from '../errorCodes.js';

export type Scope = 'read' | 'write';
export const SCOPES: readonly Scope[] = ['read', 'write'];

/** A configured token: the secret and what it may do. */
export interface TokenSpec {
  token: string;
  scopes?: readonly Scope[];
}

interface HashedToken {
  digest: Buffer;
  scopes: ReadonlySet<Scope>;
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Parses MACHINIST_TOKENS-style text: `secret`, `secret:read`, `secret:write`, comma-separated. */
export function parseTokenList(text: string): TokenSpec[] {
  const out: TokenSpec[] = [];
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const i = entry.lastIndexOf(':');
    const suffix = i > 0 ? entry.slice(i + 1) : '';
    if (suffix === 'read' || suffix === 'write') out.push({ token: entry.slice(0, i), scopes: [suffix] });
    else out.push({ token: entry });
  }
  return out;
}

export class TokenTable {
  private readonly tokens: HashedToken[];

  constructor(specs: readonly (string | TokenSpec)[]) {
    this.tokens = specs.map((s) => {
      const spec = typeof s === 'string' ? { token: s } : s;
      if (typeof spec.token !== 'string' || spec.token.length < 8)
        throw new TypeError('createServer: each token must be a string of at least 8 characters');
      for (const scope of spec.scopes ?? [])
        if (!SCOPES.includes(scope)) throw new TypeError(`createServer: unknown token scope '${scope}'`);
      return { digest: digest(spec.token), scopes: new Set(spec.scopes ?? SCOPES) };
    });
  }

  get size(): number {
    return this.tokens.length;
  }

  /** The scopes of the presented token, or null when it matches none. */
  scopesOf(presented: string): ReadonlySet<Scope> | null {
    const d = digest(presented);
    let found: ReadonlySet<Scope> | null = null;
    for (const t of this.tokens) if (timingSafeEqual(d, t.digest) && !found) found = t.scopes;
    return found;
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a route needs (default: `read` for GET, `write` otherwise). */
    scope?: Scope;
  }
}

/** Each checked request's token scopes (open routes and servers without auth have none). */
const scopesOfRequest = new WeakMap<FastifyRequest, ReadonlySet<Scope>>();

/** The scopes of the token a request was let in with; undefined when none was checked. */
export function requestScopes(request: FastifyRequest): ReadonlySet<Scope> | undefined {
  return scopesOfRequest.get(request);
}

function requiredScope(request: FastifyRequest): Scope {
  return (
    request.routeOptions.config?.scope ??
    (request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write')
  );
}

/**
 * Checks every request but those to `openRoutes` (route URLs as registered, e.g. '/healthz'):
 * 401 without a known bearer token, 403 when the token lacks the route's scope.
 */
export function installAuth(app: FastifyInstance, table: TokenTable, openRoutes: ReadonlySet<string>): void {
  app.addHook('onRequest', async (request) => {
    const url = request.routeOptions.url;
    if (url !== undefined && openRoutes.has(url)) return;
    const header = request.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m)
      throw new HttpError(CODE.UNAUTHORIZED, 'a bearer token is required (Authorization: Bearer <token>)');
    const scopes = table.scopesOf(m[1]!);
    if (!scopes) throw new HttpError(CODE.UNAUTHORIZED, 'the bearer token is not valid');
    scopesOfRequest.set(request, scopes);
    const needed = requiredScope(request);
    if (!scopes.has(needed)) throw new HttpError(CODE.FORBIDDEN, `this token lacks the '${needed}' scope`);
  });
}
