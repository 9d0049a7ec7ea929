// Calls to the server: the HTTP API (same origin) and the dashboard's own JSON routes. A bearer
// token, when the server asks for one, is kept in this browser's localStorage and sent as the
// API expects; the dashboard has no auth of its own.

const TOKEN_KEY = 'machinist.token';

export const DASH = '/dashboard/api';

export function token(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

export function setToken(value: string | null): void {
  if (value) localStorage.setItem(TOKEN_KEY, value);
  else localStorage.removeItem(TOKEN_KEY);
}

export function authHeaders(): Record<string, string> {
  const t = token();
  return t ? { authorization: `Bearer ${t}` } : {};
}

/**
 * A failed API call. The browser bundle does not import the server's errors; `code` is the
 * registry code the API answered with (src/errorCodes.ts), or undefined when the answer had none.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

async function request(method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json', ...authHeaders() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    let code: string | undefined;
    try {
      // The API answers every failure as { error: { code, message } }.
      const j = (await res.json()) as { error?: { code?: string; message?: string } };
      code = j.error?.code;
      message = `${res.status} ${j.error?.code ?? ''}: ${j.error?.message ?? res.statusText}`;
    } catch {
      // not JSON: keep the status line
    }
    if (res.status === 401) message += ' (set a token with the Token button)';
    throw new ApiError(res.status, message, code);
  }
  return res;
}

export async function getJson<T>(path: string): Promise<T> {
  return (await (await request('GET', path)).json()) as T;
}

export async function getText(path: string): Promise<string> {
  return (await request('GET', path)).text();
}

export async function postJson<T>(path: string, body: unknown = {}): Promise<T> {
  const res = await request('POST', path, body);
  const text = await res.text();
  return (text ? JSON.parse(text) : null) as T;
}

export function qs(params: Record<string, string | number | undefined | null>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}
