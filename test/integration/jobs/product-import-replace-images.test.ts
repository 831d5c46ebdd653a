import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import type { ProductPlanFile } from '../../../src/jobs/products/product-import.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { captureStream as capture } from '../../helpers/run-cli.js';

const SAMPLES = join(resolve(import.meta.dirname, '../../..'), 'samples');
const NEW_IMAGE = 'https://images.example.com/new-front.png';

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('import products --replace images (CLI, dry run)', () => {
  it('keeps the live images the sheet does not list unless --replace images; rejects an unknown list', async () => {
    sandbox = await startSandbox({ seed: join(SAMPLES, 'store.json') });
    const s = sandbox;
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-replace-images-'));
    writeFileSync(join(dir, 'images.csv'), `reference_id,images\nERP-0000002,${NEW_IMAGE}\n`);
    const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
    const run = async (argv: string[]) => {
      const stdout = capture();
      const stderr = capture();
      const code = await main(argv, { env, cwd: dir, stdout: stdout.stream, stderr: stderr.stream });
      return { code, stdout: stdout.text(), stderr: stderr.text() };
    };
    const bodyOf = (report: string) =>
      (JSON.parse(readFileSync(join(dir, report), 'utf8')) as ProductPlanFile).plan.entries[0]?.body;
    const live = s.store.getProduct('prod_00000002').images;
    expect(live).toHaveLength(2);

    const keep = await run(['import', 'products', 'images.csv', '--report', 'keep.json']);
    expect(keep.code).toBe(0);
    expect(bodyOf('keep.json')).toEqual({ images: [NEW_IMAGE, ...live] });

    const replace = await run([
      'import',
      'products',
      'images.csv',
      '--replace',
      'images',
      '--report',
      'replace.json',
    ]);
    expect(replace.code).toBe(0);
    expect(bodyOf('replace.json')).toEqual({ images: [NEW_IMAGE] });

    const bad = await run(['import', 'products', 'images.csv', '--replace', 'pictures']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--replace takes .*images.*"pictures"/);
    expect(s.store.getProduct('prod_00000002').images).toEqual(live);
  });
});
