import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MbulkError } from '../../../src/errors/mbulk-error.js';
import type { GlobalArgs } from '../../../src/cli/command-context.js';
import { isLoopbackHost } from '../../../src/api/refuse-plain-http.js';
import { resolveTargetConfig, sampleStorePath } from '../../../src/cli/target.js';

const args = (over: Partial<GlobalArgs> = {}): GlobalArgs => ({
  json: false,
  'insecure-http': false,
  concurrency: 4,
  verbose: false,
  ...over,
});
const cwd = mkdtempSync(join(tmpdir(), 'mbulk-target-'));

function refusal(fn: () => unknown): MbulkError {
  try {
    fn();
  } catch (error) {
    if (error instanceof MbulkError) return error;
    throw error;
  }
  throw new Error('expected an MbulkError');
}

describe('resolveTargetConfig', () => {
  it('uses the embedded sandbox when no base URL is configured', () => {
    // One place per user whatever the directory: $XDG_DATA_HOME/mbulk, else ~/.local/share/mbulk.
    const xdg = resolveTargetConfig(args(), { XDG_DATA_HOME: '/data/u', HOME: '/home/u' }, cwd);
    expect(xdg).toEqual({
      kind: 'embedded',
      dataFile: join('/data/u', 'mbulk', 'sandbox.json'),
      describe: `local sandbox (${join('/data/u', 'mbulk', 'sandbox.json')})`,
    });
    expect(resolveTargetConfig(args(), { HOME: '/home/u' }, cwd)).toMatchObject({
      dataFile: join('/home/u', '.local', 'share', 'mbulk', 'sandbox.json'),
    });
    const other = resolveTargetConfig(args({ 'sandbox-data': 'x/state.json' }), {}, cwd);
    expect(other).toMatchObject({ kind: 'embedded', dataFile: join(cwd, 'x', 'state.json') });
  });

  it('takes --base-url over MERCHANT_API_URL, and --token over --token-file over MERCHANT_API_TOKEN', () => {
    const env = { MERCHANT_API_URL: 'https://env.example/', MERCHANT_API_TOKEN: 'env-token' };
    expect(resolveTargetConfig(args(), env, cwd)).toEqual({
      kind: 'remote',
      baseUrl: 'https://env.example',
      token: 'env-token',
    });
    writeFileSync(join(cwd, 'tok'), '  file-token \n');
    expect(
      resolveTargetConfig(args({ 'base-url': 'https://flag.example', 'token-file': 'tok' }), env, cwd),
    ).toEqual({
      kind: 'remote',
      baseUrl: 'https://flag.example',
      token: 'file-token',
    });
    expect(resolveTargetConfig(args({ token: 'flag-token', 'token-file': 'tok' }), env, cwd)).toMatchObject({
      token: 'flag-token',
    });
  });

  it('refuses plain http to a non-loopback host unless --insecure-http (exit 2)', () => {
    const env = { MERCHANT_API_TOKEN: 't' };
    const e = refusal(() => resolveTargetConfig(args({ 'base-url': 'http://shop.example.com' }), env, cwd));
    expect(e.exitCode).toBe(2);
    expect(
      resolveTargetConfig(args({ 'base-url': 'http://shop.example.com', 'insecure-http': true }), env, cwd),
    ).toMatchObject({ kind: 'remote' });
    for (const host of ['127.0.0.1:4010', 'localhost:4010', '[::1]:4010']) {
      expect(resolveTargetConfig(args({ 'base-url': `http://${host}` }), env, cwd)).toMatchObject({
        kind: 'remote',
      });
    }
  });

  it('refuses a missing token, an unreadable token file and credentials in the URL, never echoing secrets', () => {
    expect(
      refusal(() => resolveTargetConfig(args({ 'base-url': 'https://a.example' }), {}, cwd)).exitCode,
    ).toBe(2);
    const missing = refusal(() =>
      resolveTargetConfig(args({ 'base-url': 'https://a.example', 'token-file': 'nope' }), {}, cwd),
    );
    expect(missing.exitCode).toBe(2);
    const creds = refusal(() =>
      resolveTargetConfig(
        args({ 'base-url': 'https://user:hunter2@a.example' }),
        { MERCHANT_API_TOKEN: 't' },
        cwd,
      ),
    );
    expect(creds.message).not.toContain('hunter2');
    const bad = refusal(() => resolveTargetConfig(args({ 'base-url': 'ftp://a.example' }), {}, cwd));
    expect(bad.exitCode).toBe(2);
  });
});

describe('isLoopbackHost', () => {
  it('knows loopback names and addresses', () => {
    for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]', 'api.localhost'])
      expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['example.com', '10.0.0.1', '128.0.0.1', 'localhost.example.com'])
      expect(isLoopbackHost(h)).toBe(false);
  });
});

describe('sampleStorePath', () => {
  it('is found from the package, not from the working directory', () => {
    expect(sampleStorePath()).toBe(join(process.cwd(), 'samples', 'store.json'));
  });
});
