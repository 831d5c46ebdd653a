import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/server.js';
import { runCli } from '../../helpers/run-cli.js';

const SHOPIFY = resolve('test/fixtures/corpus/shopify/product_template.csv');
const dir = mkdtempSync(join(tmpdir(), 'mbulk-location-'));
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('--location on a sheet that is not a Square export', () => {
  it('is a usage error naming the detected format (exit 2), nothing written', async () => {
    const sandbox = await startSandbox();
    try {
      const env = { MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: sandbox.token };
      const run = await runCli(['import', 'products', SHOPIFY, '--location', 'Main St'], env, dir);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        "this is a Shopify product export; --location takes one location's stock of a Square item library export",
      );
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(sandbox.requestLog().filter((e) => e.method !== 'GET')).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});
