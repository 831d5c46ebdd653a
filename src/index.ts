// Public library API: named re-exports only.
export * from './schema/index.js';
