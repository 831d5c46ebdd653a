/**
 * `merchant-bulk/msw`: msw 2 request handlers that serve the sandbox's rules, for your own tests.
 *
 *   import { SandboxStore } from 'merchant-bulk';
 *   import { createSandboxHandlers } from 'merchant-bulk/msw';
 *   const server = setupServer(...createSandboxHandlers(new SandboxStore(), { baseUrl: 'https://m.test', token: 't' }));
 *
 * A subpath of its own because msw is an optional peer dependency: the root entry's types and
 * code never import msw, so a project without msw compiles against `merchant-bulk`.
 */
export { createSandboxHandlers, type SandboxHandlerOptions } from './sandbox/msw-handlers.js';
export { loadSandboxHandlers } from './sandbox/load-msw-handlers.js';
