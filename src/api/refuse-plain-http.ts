import { UsageError } from '../errors/usage-error.js';

const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]']);

/** Whether a URL host is this machine (plain http is only allowed there). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (LOOPBACK_NAMES.has(host) || host.endsWith('.localhost')) return true;
  return /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Refuses plain http:// to a host other than this machine unless `insecureHttp` (the CLI's
 * `--insecure-http`): what the request carries (`secret`: the API token, a feed and its headers)
 * would travel unencrypted. A usage error (exit 2), thrown before any request; one message for the
 * CLI and a library caller alike.
 */
export function refusePlainHttp(url: URL, insecureHttp: boolean | undefined, secret = 'the API token'): void {
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname) || insecureHttp === true) return;
  throw new UsageError(
    `refusing plain http:// to ${url.host}: ${secret} would travel unencrypted. Use https://, or --insecure-http if you really mean it.`,
    'insecure-http',
  );
}
