import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { sampleSandboxes } from '../../helpers/sample-sandboxes.js';

/**
 * Money cells in another currency, and `--decimal-comma` taking `.` only as a
 * thousands separator in groups of three. The store is MYR (the sample store); the witness is what
 * the sandbox holds after `--apply`: only the rows that mean a MYR amount are created, at that amount.
 */
const { dir, sandbox: sampleSandbox } = sampleSandboxes('mbulk-money-cells-');

/** The acceptance table: cell → [without --decimal-comma, with it] (minor units, or the error code). */
const TABLE: [string, number | string, number | string][] = [
  ['$12.90', 'money_currency', 'money_currency'],
  ['€12,90', 'money_currency', 'money_currency'],
  ['12.90 USD', 'money_currency', 'money_currency'],
  ['¥1290', 'money_currency', 'money_currency'],
  ['RM 12.90', 1290, 'money_invalid'],
  ['MYR 12.90', 1290, 'money_invalid'],
  ['1.234,50', 'money_invalid', 123450],
  ['12.9', 1290, 'money_invalid'],
  ['12.905', 'money_too_many_decimals', 1290500],
  ['1,234.50', 123450, 'money_invalid'],
];

function writeSheet(): string {
  const quote = (v: string) => (/[",]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  const lines = ['reference_id,name,price'];
  TABLE.forEach(([cell], i) => lines.push(`MONEY-${i + 1},Money row ${i + 1},${quote(cell)}`));
  const file = join(dir, 'money.csv');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function importTable(decimalComma: boolean) {
  const { s, env } = await sampleSandbox();
  const argv = ['import', 'products', writeSheet(), '--apply', '--yes', '--json', '--allow-price-jumps'];
  if (decimalComma) argv.push('--decimal-comma');
  const r = await runCli(argv, env, dir);
  const created = new Map<string, number>();
  for (const p of s.store.toSnapshot().products) {
    if (p.reference_id?.startsWith('MONEY-')) created.set(p.reference_id, p.price);
  }
  const failed = new Map<number, { code: string; message: string }>();
  for (const f of r.json<{ failedRows: { row: number; code: string; message: string }[] }>().failedRows) {
    failed.set(f.row, f);
  }
  return { r, created, failed };
}

describe('money cells in a MYR store', () => {
  for (const decimalComma of [false, true]) {
    it(`${decimalComma ? 'with' : 'without'} --decimal-comma: writes only MYR amounts, exactly`, async () => {
      const { r, created, failed } = await importTable(decimalComma);
      expect(r.code).toBe(1); // finished with invalid rows
      TABLE.forEach(([cell, plain, comma], i) => {
        const want = decimalComma ? comma : plain;
        const ref = `MONEY-${i + 1}`;
        const row = i + 2;
        if (typeof want === 'number') {
          expect({ cell, price: created.get(ref) }).toEqual({ cell, price: want });
          expect(failed.has(row)).toBe(false);
        } else {
          expect({ cell, created: created.has(ref) }).toEqual({ cell, created: false });
          expect({ cell, code: failed.get(row)?.code }).toEqual({ cell, code: want });
        }
      });
      // Another currency names the store's: the user is told what to write instead.
      expect(failed.get(2)?.message).toMatch(/this store's prices are in MYR/);
      expect(failed.get(2)?.message).toMatch(/RM 12[.,]90/);
    });
  }
});
