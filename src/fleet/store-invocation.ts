import type { FleetFile, FleetStore } from './fleet-file.js';
import { optionFlags } from './job-options.js';

/**
 * How one store of a fleet runs: `mbulk import KIND FEED --json --base-url URL --runs-dir DIR …`
 * as a child process with an environment of its own. The token travels in the child's
 * environment (`MERCHANT_API_TOKEN`, readable by its owner only) or as a `--token-file` path, and a
 * feed header as `--header-env NAME` with that variable in the environment: never a secret on a
 * command line, which `ps` shows to every user of the machine. The child's environment holds no
 * other store's secrets.
 */
export interface StoreInvocation {
  /** The arguments after `mbulk`. */
  args: string[];
  env: NodeJS.ProcessEnv;
}

export interface InvocationOptions {
  /** The fleet's own environment (the children's is made from it). */
  env: NodeJS.ProcessEnv;
  apply: boolean;
  /** The store's runs directory (absolute). */
  runsDir: string;
}

/** Why a store cannot be started (its token's variable is unset…): it ends with exit 2. */
export interface StoreNotStartable {
  problem: string;
}

/** Variables no child inherits: the target of the fleet's own shell, and every store's secrets. */
function secretVariables(fleet: FleetFile): Set<string> {
  const names = new Set(['MERCHANT_API_URL', 'MERCHANT_API_TOKEN']);
  for (const store of fleet.stores) {
    if ('env' in store.token) names.add(store.token.env);
    for (const name of store.headerEnv) names.add(name);
  }
  return names;
}

/** The child process of one store, or why it cannot start. */
export function storeInvocation(
  fleet: FleetFile,
  store: FleetStore,
  options: InvocationOptions,
): StoreInvocation | StoreNotStartable {
  const hidden = secretVariables(fleet);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(options.env)) if (!hidden.has(name)) env[name] = value;
  const args = ['import', fleet.kind, store.feed, '--json', '--base-url', store.baseUrl];
  args.push('--runs-dir', options.runsDir);
  if ('env' in store.token) {
    const token = options.env[store.token.env]?.trim();
    if (token === undefined || token === '')
      return { problem: `token_env: the environment variable ${store.token.env} is not set or empty` };
    env['MERCHANT_API_TOKEN'] = token;
  } else args.push('--token-file', store.token.file);
  for (const name of store.headerEnv) {
    const header = options.env[name];
    if (header === undefined || header.trim() === '')
      return { problem: `header_env: the environment variable ${name} is not set or empty` };
    env[name] = header;
    args.push('--header-env', name);
  }
  if (options.apply) args.push('--apply', '--yes');
  args.push(...optionFlags(store.options));
  return { args, env };
}

/**
 * A store's message in the words of the fleet file: the store's process names where its URL and
 * token came from on its own command line (`MERCHANT_API_TOKEN`, `--base-url`), which the file's
 * reader knows as `token_env KL_TOKEN` and `base_url`.
 */
export function inFleetTerms(message: string, store: FleetStore): string {
  let text = message
    .replaceAll('--base-url', 'base_url')
    .replace(/--header-env ([A-Z0-9_]+)/g, 'header_env $1');
  text =
    'env' in store.token
      ? text.replaceAll('MERCHANT_API_TOKEN', `token_env ${store.token.env}`)
      : text.replaceAll(`--token-file ${store.token.file}`, `token_file ${store.token.file}`);
  return text;
}
