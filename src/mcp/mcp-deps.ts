import type { MerchantClient } from '../api/merchant-client.js';
import type { StoreLockOptions } from '../apply/store-lock.js';
import type { McpServerOptions } from './mcp-options.js';

/** What the server's tools call into: the store's client, where it is, and the operator's options. */
export interface McpServerDeps {
  client: MerchantClient;
  /** Where the client writes, as runs record it (`local sandbox (…)` or the base URL; never a token). */
  target: string;
  options: McpServerOptions;
  /** Relative source paths are read from here. */
  cwd: string;
  /** Where applySavedRun takes the store's one-writer lock (the CLI's `$MBULK_LOCK_DIR`), and the command it names. */
  lock: StoreLockOptions;
  /** Aborted when the server stops (SIGINT, SIGTERM): applies stop as with Ctrl-C. */
  signal: AbortSignal;
  version: string;
  /**
   * Downloads an https:// sheet. Default: the library's feed download (feeds/remote-source.ts
   * `downloadSheet`, as `import` of a URL: https only, size and time limits, no credentials); a
   * test may give another.
   */
  download?: ((url: string, signal: AbortSignal) => Promise<string>) | undefined;
}
