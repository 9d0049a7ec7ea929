// One request to the HTTP API of a running `machinist serve` or `dev` (HttpBackend.ts): the URL
// checked once, the token sent, the reply's JSON for a 2xx. Apart from the backend's routes
// because it is the one place an HTTP answer becomes what the CLI shows: the server's error body
// becomes the same typed error the store path throws (JOB_NOT_FOUND a JobNotFoundError, the
// server's code otherwise as it sent it), and what only HTTP has (a refused token, a server that
// cannot reach its store, nothing listening, no answer within REQUEST_TIMEOUT_MS) one CliError
// line.

import { JobNotFoundError, MachinistError } from '../../errors.js';
import { CliError, EXIT } from '../CliError.js';
import { CODE, type ErrorCode } from '../../errorCodes.js';

/** A request the server does not answer in this long fails (no route the CLI uses holds one). */
const REQUEST_TIMEOUT_MS = 30_000;

type Query = Record<string, string | number | readonly string[] | undefined>;

interface ErrorBody {
  error?: {
    code?: string;
    message?: string;
    jobId?: string;
    machine?: string;
    queue?: string;
    field?: string;
    index?: number;
  };
}

export class HttpApi {
  readonly where: string;

  constructor(
    url: string,
    private readonly token: string | undefined,
  ) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new CliError(`invalid --url '${url}': expected http://host:port`, EXIT.usage);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new CliError(`invalid --url '${url}': expected an http:// or https:// URL`, EXIT.usage);
    this.where = parsed.toString().replace(/\/+$/, '');
  }

  /** The reply's JSON for a 2xx; anything else thrown as the error it stands for. */
  async call<T>(method: string, route: string, query: Query = {}, body?: unknown): Promise<T> {
    const url = new URL(this.where + route);
    for (const [k, v] of Object.entries(query)) {
      if (Array.isArray(v)) for (const one of v) url.searchParams.append(k, one);
      else if (v !== undefined) url.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why =
        (err as Error).name === 'TimeoutError'
          ? `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`
          : (cause?.code ?? cause?.message ?? (err as Error).message);
      throw new CliError(`cannot reach Machinist at ${this.where}: ${why}`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new CliError(
        `${this.where} answered ${method} ${route} with ${res.status} and no JSON: is it Machinist?`,
      );
    }
    if (res.ok) return parsed as T;
    throw this.failure(res.status, method, route, (parsed as ErrorBody | undefined)?.error);
  }

  private failure(status: number, method: string, route: string, e: ErrorBody['error']): Error {
    const code = e?.code ?? `HTTP_${status}`;
    const message = e?.message ?? `${method} ${route} answered ${status}`;
    if (status === 401)
      return new CliError(
        this.token
          ? `${this.where} refused the token (--token, MACHINIST_TOKEN): ${message} [${code}]`
          : `${this.where} needs a token: give --token or set MACHINIST_TOKEN [${code}]`,
      );
    if (status === 403)
      return new CliError(
        `the token may not ${method === 'GET' ? 'read' : 'write'} at ${this.where} [${code}]`,
      );
    if (status === 503)
      return new CliError(`the server at ${this.where} cannot reach its store: ${message} [${code}]`);
    if (code === CODE.JOB_NOT_FOUND && e?.jobId) return new JobNotFoundError(e.jobId, e.queue);
    // A route this server does not have (a release before it): not "no such job".
    if (status === 404 && code === CODE.NOT_FOUND && !e?.machine)
      return new CliError(`${this.where} has no ${method} ${route}: ${message} [${code}]`);
    // The server's code as it sent it (a newer server may send one this release does not know).
    return new MachinistError(code as ErrorCode, message, {
      jobId: e?.jobId,
      machine: e?.machine,
      queue: e?.queue,
      field: e?.field,
      index: e?.index,
    });
  }
}
