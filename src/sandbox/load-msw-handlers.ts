import type { HttpHandler } from 'msw';
import type { SandboxHandlerOptions } from './msw-handlers.js';
import type { SandboxStore } from './store.js';

/**
 * msw 2 request handlers serving the sandbox's rules from `store`, for your own tests:
 * `setupServer(...(await loadSandboxHandlers(store, { baseUrl: 'https://m.test', token: 't' })))`.
 * Loaded lazily because msw is an optional peer dependency: installing merchant-bulk does not
 * install msw, and nothing else in the library needs it.
 */
export async function loadSandboxHandlers(
  store: SandboxStore,
  options: SandboxHandlerOptions,
): Promise<HttpHandler[]> {
  const { createSandboxHandlers } = await import('./msw-handlers.js');
  return createSandboxHandlers(store, options);
}
export type { SandboxHandlerOptions };
