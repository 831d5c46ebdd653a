import { readFileSync } from 'node:fs';

/** The installed package's version, from its package.json (two levels above src/cli and dist/cli). */
export function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const version = (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === 'string' ? version : 'unknown';
}
