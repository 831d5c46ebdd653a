import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { sampleSandboxes } from '../../helpers/sample-sandboxes.js';

/**
 * Price sanity: a price ×100 (a forgotten decimal point) or a new price far above the
 * catalog's median is listed as suspicious and refused on --apply (exit 3) with zero writes, also
 * through `mbulk apply RUN`, unless --allow-price-jumps. Witness: the sandbox request log and store.
 */
const { dir, sandbox: sampleSandbox } = sampleSandboxes('mbulk-price-jumps-');

async function sandbox() {
  const { s, env, writes } = await sampleSandbox();
  const product = (ref: string) => s.store.toSnapshot().products.find((p) => p.reference_id === ref);
  return { s, env, writes, product };
}

function sheet(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

// ERP-0000001 sells at 11.90 (variants 11.90 and 13.90); the catalog's median item price is far below 1,190.
const FORGOTTEN_POINT = ['reference_id,price', 'ERP-0000001,1190'];

describe('price sanity', () => {
  it('refuses a price ×100 on --apply with exit 3 and zero writes', async () => {
    const { env, writes, product } = await sandbox();
    const before = product('ERP-0000001');
    expect(before?.price).toBe(1190);
    const file = sheet('x100.csv', FORGOTTEN_POINT);

    const r = await runCli(['import', 'products', file, '--apply', '--yes', '--json'], env, dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /suspicious price change.*ERP-0000001 \(row 2\): price 11\.90 → 1190\.00 \(×100\)/s,
    );
    expect(r.stderr).toMatch(/--allow-price-jumps/);
    expect(writes()).toEqual([]);
    expect(product('ERP-0000001')).toEqual(before);
  });

  it('lists the jump in a dry run; `mbulk apply RUN` refuses it unless --allow-price-jumps', async () => {
    const { env, writes, product } = await sandbox();
    const file = sheet('x100-dry.csv', FORGOTTEN_POINT);
    const dry = await runCli(['import', 'products', file, '--json'], env, dir);
    expect(dry.code).toBe(0);
    const planned = dry.json<{ runId: string; priceJumps: { label: string; reason: string }[] }>();
    expect(planned.priceJumps).toMatchObject([{ label: 'ERP-0000001 price', reason: 'ratio' }]);

    const refused = await runCli(['apply', planned.runId, '--yes', '--json'], env, dir);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/refused: 1 suspicious price change/);
    expect(writes()).toEqual([]);
    expect(product('ERP-0000001')?.price).toBe(1190);

    const allowed = await runCli(
      ['apply', planned.runId, '--yes', '--json', '--allow-price-jumps'],
      env,
      dir,
    );
    expect(allowed.code).toBe(0);
    expect(writes().map((w) => w.method)).toEqual(['PATCH']);
    expect(product('ERP-0000001')?.price).toBe(119000);
  });

  it('refuses a new product priced over 10× the catalog median, and a price ÷10; the flag lets them through', async () => {
    const { env, writes, product } = await sandbox();
    const file = sheet('median.csv', [
      'reference_id,name,price',
      'NEW-LUXE,Gold-plated cup,9999.00',
      'NEW-CUP,Plain cup,12.00',
      'ERP-0000001,,1.19',
    ]);
    const r = await runCli(['import', 'products', file, '--apply', '--yes', '--json'], env, dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /NEW-LUXE \(row 2\): price new → 9999\.00 \(over 10× the catalog's median price/,
    );
    expect(r.stderr).toMatch(/ERP-0000001 \(row 4\): price 11\.90 → 1\.19 \(÷10\)/);
    expect(r.stderr).not.toMatch(/suspicious price: NEW-CUP/);
    expect(writes()).toEqual([]);

    const ok = await runCli(
      ['import', 'products', file, '--apply', '--yes', '--json', '--allow-price-jumps'],
      env,
      dir,
    );
    expect(ok.code).toBe(0);
    expect(product('NEW-LUXE')?.price).toBe(999900);
    expect(product('ERP-0000001')?.price).toBe(119);
  });
});
