import { http, type HttpHandler } from 'msw';
import { SandboxApp, type SandboxAppOptions } from './app.js';
import type { SandboxStore } from './store.js';

export interface SandboxHandlerOptions extends SandboxAppOptions {
  /** Origin the handlers intercept, e.g. `https://merchant.test` (no trailing slash). */
  baseUrl: string;
}

/**
 * msw 2 handlers that answer every request under `baseUrl` from the same store core and rules
 * as the HTTP sandbox (auth, validation, idempotency, faults). Sets `store.baseUrl` so image URLs
 * under `baseUrl` are kept as they are (new ones are re-hosted on the sandbox's storage). Drops are emulated as a network error (`Response.error()`), which
 * is the closest msw can get to a destroyed socket; with drop_after the change is applied first.
 *
 *   const store = new SandboxStore();
 *   const server = setupServer(...createSandboxHandlers(store, { baseUrl: 'https://m.test', token: 't' }));
 */
export function createSandboxHandlers(store: SandboxStore, options: SandboxHandlerOptions): HttpHandler[] {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  store.baseUrl = baseUrl;
  const { baseUrl: _b, ...appOptions } = options;
  const app = new SandboxApp(store, appOptions);
  return [http.all(`${baseUrl}/*`, ({ request }) => app.handleFetch(request))];
}
