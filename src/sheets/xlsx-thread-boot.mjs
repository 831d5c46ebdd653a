// The XLSX writer's worker thread run from the TypeScript sources (tsx, vitest), where Node alone
// cannot load it: register tsx's loader in this thread, then load the worker
// (src/sheets/xlsx-thread-writer.ts). The built CLI and library start their compiled worker directly.
import { register } from 'tsx/esm/api';

register();
await import('./xlsx-thread-worker.ts');
