import type { RunningSandbox } from '../../../src/sandbox/server.js';

/** Loose JSON for test assertions (tests index freely into bodies). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** A response read once: status, headers and parsed JSON body. */
export interface Reply<T = Json> {
  status: number;
  headers: Headers;
  body: T;
}

/** Plain-fetch helper for the sandbox tests (deliberately not the project's API client). */
export function client(sb: Pick<RunningSandbox, 'url' | 'token'>) {
  async function call<T = Json>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply<T>> {
    const res = await fetch(`${sb.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${sb.token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
  }
  return {
    call,
    get: <T = Json>(path: string, headers?: Record<string, string>) =>
      call<T>('GET', path, undefined, headers),
    post: <T = Json>(path: string, body: unknown, headers?: Record<string, string>) =>
      call<T>('POST', path, body, headers),
    patch: <T = Json>(path: string, body: unknown) => call<T>('PATCH', path, body),
    del: <T = Json>(path: string) => call<T>('DELETE', path),
    /** Every item of a list, following next_cursor. */
    async all<T = Json>(path: string): Promise<T[]> {
      const out: T[] = [];
      let cursor: string | null = null;
      for (;;) {
        const sep = path.includes('?') ? '&' : '?';
        const r: Reply = await call('GET', `${path}${sep}limit=100${cursor ? `&cursor=${cursor}` : ''}`);
        if (r.status !== 200) throw new Error(`list ${path}: ${r.status} ${JSON.stringify(r.body)}`);
        out.push(...(r.body.data as T[]));
        if (!r.body.has_more) return out;
        cursor = r.body.next_cursor as string;
      }
    },
  };
}

/** Asserts nothing about the status; returns `error` of an envelope after checking its shape. */
export function envelope(r: Reply): {
  type: string;
  code: string;
  message: string;
  param?: string;
  request_id: string;
} {
  const e = r.body?.error;
  if (!e || typeof e.type !== 'string' || typeof e.request_id !== 'string') {
    throw new Error(`not an error envelope: ${JSON.stringify(r.body)}`);
  }
  if (e.request_id !== r.headers.get('x-request-id')) throw new Error('request_id differs from x-request-id');
  return e;
}
