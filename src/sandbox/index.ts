// The sandbox's public surface (msw handlers are separate: import them from './msw-handlers.js',
// so msw stays a dev/test dependency).
export { startSandbox, createSandboxStore, loadInitialState } from './server.js';
export type { SandboxOptions, RunningSandbox } from './server.js';
export { SandboxStore, DEFAULT_TEMPLATE_LANGUAGE } from './store.js';
export type { SandboxState, SandboxExtras, SandboxStoreOptions, SentMessage, ListQuery } from './store.js';
export { SandboxApp, DEFAULT_TOKEN } from './app.js';
export type { SandboxAppOptions, SandboxRequest, SandboxResponse } from './app.js';
export { SandboxError } from './sandbox-error.js';
export type { FaultOptions } from './faults.js';
export type { RequestLogEntry, RequestOutcome } from './request-log.js';
export { writeFileAtomic, readStateFile } from './persistence.js';
