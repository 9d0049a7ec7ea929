// One webhook POST, guarded against SSRF: the host is resolved once, every address it resolves
// to must be public (addressGuard.ts) unless the host is on the allow-list, and the request
// connects to the address that was checked (a `lookup` that answers with it: no second DNS
// query a rebinding attacker could answer differently). No redirects are followed (a 3xx is a
// failure), one deadline covers resolve, connect, send and response, and at most
// MAX_RESPONSE_BYTES of the response are read.

import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from './addressGuard.js';

export const MAX_RESPONSE_BYTES = 64 * 1024;

export type SendOutcome =
  | { result: 'delivered'; status: number }
  /** 410 Gone: the receiver wants no more deliveries for this job. */
  | { result: 'gone'; status: number }
  /** Not sent, and sending again cannot help: refused by the SSRF guard, or a bad URL. */
  | { result: 'refused'; reason: string }
  /** A failure worth retrying: a non-2xx answer (3xx included), a timeout, a network error. */
  | { result: 'failed'; reason: string; status?: number };

export interface SendOptions {
  headers: Record<string, string>;
  body: string;
  /** Hosts (names or IP literals, lowercase) the guard lets through although not public. */
  allowHosts: ReadonlySet<string>;
  /** One deadline for the whole delivery. */
  timeoutMs: number;
}

/** The host to look up: brackets off an IPv6 literal. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

export async function sendWebhook(target: string, o: SendOptions): Promise<SendOutcome> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { result: 'refused', reason: 'not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { result: 'refused', reason: `scheme ${url.protocol} is not http or https` };
  const host = bareHost(url);
  const allowed = o.allowHosts.has(host) || o.allowHosts.has(`${host}:${url.port}`);
  const deadline = Date.now() + o.timeoutMs;
  let address: string;
  let family: number;
  if (isIP(host)) {
    address = host;
    family = isIP(host);
  } else {
    let all: { address: string; family: number }[];
    try {
      all = await withDeadline(dnsLookup(host, { all: true, verbatim: true }), deadline);
    } catch (err) {
      return { result: 'failed', reason: `cannot resolve ${host}: ${(err as Error).message}` };
    }
    if (all.length === 0) return { result: 'failed', reason: `${host} resolves to no address` };
    // Any address that is not public refuses the host: a name that mixes public and private
    // records is how a rebinding attack gets a private one tried.
    const bad = all.find((a) => !isPublicAddress(a.address));
    if (bad && !allowed)
      return { result: 'refused', reason: `${host} resolves to ${bad.address}, not a public address` };
    ({ address, family } = all[0]!);
  }
  if (!allowed && !isPublicAddress(address))
    return { result: 'refused', reason: `${address} is not a public address` };
  // The connection goes to the address checked above, whatever the resolver would say now.
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as any)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...o.headers, 'content-length': String(Buffer.byteLength(o.body)) },
    lookup: pinned,
    agent: false,
  };
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(
      () => finish({ result: 'failed', reason: `no answer within ${o.timeoutMs} ms` }),
      Math.max(1, deadline - Date.now()),
    );
    const req = request(url, options, (res) => {
      const status = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        // The body is not needed: read (a little of) it so the socket closes cleanly, no more.
        if (read > MAX_RESPONSE_BYTES) res.destroy();
      });
      const done = () => {
        if (status >= 200 && status < 300) finish({ result: 'delivered', status });
        else if (status === 410) finish({ result: 'gone', status });
        else if (status >= 300 && status < 400)
          finish({ result: 'failed', status, reason: `redirect (${status}) not followed` });
        else finish({ result: 'failed', status, reason: `receiver answered ${status}` });
      };
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    });
    req.on('error', (err) => finish({ result: 'failed', reason: err.message }));
    req.end(o.body);
  });
}

function withDeadline<T>(p: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error('resolving took too long')),
        Math.max(1, deadline - Date.now()),
      );
    }),
  ]).finally(() => clearTimeout(timer));
}
