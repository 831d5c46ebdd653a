import type { ApiSources } from './connection-advice.js';
import type { RunInProgress } from './describe-error.js';
import type { Output } from './output.js';

/** Options every command accepts (set up in main.ts). */
export interface GlobalArgs {
  json: boolean;
  'base-url'?: string | undefined;
  'token-file'?: string | undefined;
  token?: string | undefined;
  'insecure-http': boolean;
  'sandbox-data'?: string | undefined;
  /** A sandbox state that does not exist yet starts empty (with `currency` and `country`). */
  empty?: boolean | undefined;
  currency?: string | undefined;
  country?: string | undefined;
  concurrency: number;
  rps?: number | undefined;
  verbose: boolean;
}

/** What a command handler gets besides its own arguments. */
export interface CommandContext {
  out: Output;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted on SIGINT/SIGTERM: long work stops cleanly and flushes. */
  signal: AbortSignal;
  /** Set when a command targets a remote API: where its URL and token came from, for error advice. */
  apiSources?: ApiSources | undefined;
  /** The run being applied, once known (set by the command): a local failure's message names it. */
  run?: RunInProgress | undefined;
  /** The command line as given (for the store lock's "held by" message; never printed with tokens). */
  argv?: readonly string[];
}
