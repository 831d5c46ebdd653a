import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type { StoreSnapshot } from '../../../src/schema/index.js';
import { runCli } from '../../helpers/run-cli.js';

/**
 * No silent trimming: key cells with a leading or trailing space, tab, CR or a BOM
 * (U+FEFF) are read trimmed, and each such column gets one warning with its count, in the plan and
 * in report.md. Witness: the sandbox's store (the trimmed values were the ones used).
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const SAMPLE = JSON.parse(readFileSync(join(ROOT, 'samples', 'store.json'), 'utf8')) as StoreSnapshot;
const dir = mkdtempSync(join(tmpdir(), 'mbulk-trimmed-'));
const BOM = '\uFEFF';

const sandboxes: RunningSandbox[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) await s.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function sandbox() {
  const s = await startSandbox({ seed: structuredClone(SAMPLE) });
  sandboxes.push(s);
  return { s, env: { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token } };
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** report.md of the run whose review page the plan output names. */
function reportMd(stdout: string): string {
  const page = /Review page: (\S+report\.html)/.exec(stdout)?.[1];
  expect(page, stdout).toBeDefined();
  return readFileSync(join(dirname(page as string), 'report.md'), 'utf8');
}

const warningLines = (text: string, header: string) =>
  text.split('\n').filter((l) => l.includes(`(${header}): ${header}: `) && l.includes('spaces/tabs/BOM'));

describe('key cells with edge whitespace or a BOM are trimmed and reported', () => {
  it('stock: one warning for the sku column with the count; the trimmed SKUs are the ones updated', async () => {
    const { s, env } = await sandbox();
    const path = file(
      'stock.csv',
      [
        'sku,quantity',
        ' TEE-LIN-SND-S,11', // leading space
        'TEE-LIN-SND-M\t,12', // trailing tab
        `${BOM}TEE-LIN-SND-L,13`, // BOM (not at the start of the file: kept by the reader)
        '"\rTEE-LIN-SND-XXL",14', // leading CR, quoted
        'TEE-LIN-SND-XL,15', // clean
        '',
      ].join('\n'),
    );
    const r = await runCli(['import', 'stock', path, '--apply', '--yes'], env, dir);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    const lines = warningLines(out, 'sku');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      'sku: 4 cells had leading or trailing spaces/tabs/BOM; they were trimmed (rows 2, 3, 4, 5)',
    );
    expect(warningLines(reportMd(r.stdout), 'sku')).toHaveLength(1);

    const stock = new Map<string, number | undefined>();
    for (const p of s.store.toSnapshot().products)
      for (const v of p.variants) if (v.sku) stock.set(v.sku, v.inventory?.quantity);
    expect(
      ['TEE-LIN-SND-S', 'TEE-LIN-SND-M', 'TEE-LIN-SND-L', 'TEE-LIN-SND-XXL', 'TEE-LIN-SND-XL'].map((k) =>
        stock.get(k),
      ),
    ).toEqual([11, 12, 13, 14, 15]);
  });

  it('stock: a clean sheet gets no such warning', async () => {
    const { env } = await sandbox();
    const path = file('clean-stock.csv', 'sku,quantity\nTEE-LIN-SND-S,21\n');
    const r = await runCli(['import', 'stock', path], env, dir);
    expect(r.code, r.stderr).toBe(0);
    expect(warningLines(r.stdout + r.stderr, 'sku')).toEqual([]);
  });

  it('customers: one warning per column (id, phone, email) with its count; trimmed values are used', async () => {
    const { s, env } = await sandbox();
    const path = file(
      'customers.csv',
      [
        'id,name,phone,email',
        ' cus_00000001,Ganesh,,', // id: leading space
        `cus_00000002${BOM},Olivia,,olivia.new@example.com `, // id: trailing BOM; email: trailing space
        ',Farah Trim,\t+60 12-345 6789,\tfarah.trim@example.com\r', // phone: tab; email: tab and CR
        ',Clean Person,+60 13-222 3333,clean.person@example.com',
        '',
      ].join('\n'),
    );
    const r = await runCli(['import', 'customers', path, '--apply', '--yes'], env, dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    const md = reportMd(r.stdout);
    for (const [header, count, rows] of [
      ['id', 2, 'rows 2, 3'],
      ['email', 2, 'rows 3, 4'],
      ['phone', 1, 'row 4'],
    ] as const) {
      const expected = `${header}: ${count} ${count === 1 ? 'cell' : 'cells'} had leading or trailing spaces/tabs/BOM; they were trimmed (${rows})`;
      expect(warningLines(out, header), header).toHaveLength(1);
      expect(warningLines(out, header)[0]).toContain(expected);
      expect(warningLines(md, header), header).toHaveLength(1);
    }

    const customers = s.store.toSnapshot().customers;
    expect(customers.find((c) => c.id === 'cus_00000001')?.name).toBe('Ganesh');
    expect(customers.find((c) => c.id === 'cus_00000002')).toMatchObject({
      name: 'Olivia',
      email: 'olivia.new@example.com',
    });
    expect(customers.find((c) => c.name === 'Farah Trim')).toMatchObject({
      phone: '60123456789',
      email: 'farah.trim@example.com',
    });
    expect(customers.filter((c) => c.name === 'Farah Trim')).toHaveLength(1);
  });

  it('products: reference_id, sku and variant_sku each get one warning; the product is created with trimmed keys', async () => {
    const { s, env } = await sandbox();
    const path = file(
      'products.csv',
      [
        'reference_id,name,price,sku,variant_name,variant_sku,variant_price',
        ' ERP-0000001,Gula Melaka Latte,11.90,,,,',
        `NEW-1\t,Trim Tee,10.00,${BOM}TRIM-TEE,Small, TRIM-TEE-S,10.00`,
        'NEW-1,Trim Tee,,,Large,TRIM-TEE-L\t,10.00',
        '',
      ].join('\n'),
    );
    const r = await runCli(['import', 'products', path, '--apply', '--yes'], env, dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    const md = reportMd(r.stdout);
    for (const [header, count, rows] of [
      ['reference_id', 2, 'rows 2, 3'],
      ['sku', 1, 'row 3'],
      ['variant_sku', 2, 'rows 3, 4'],
    ] as const) {
      const expected = `${header}: ${count} ${count === 1 ? 'cell' : 'cells'} had leading or trailing spaces/tabs/BOM; they were trimmed (${rows})`;
      expect(warningLines(out, header), header).toHaveLength(1);
      expect(warningLines(out, header)[0]).toContain(expected);
      expect(warningLines(md, header), header).toHaveLength(1);
    }
    const created = s.store.toSnapshot().products.filter((p) => p.name === 'Trim Tee');
    expect(created).toHaveLength(1);
    expect(created[0]?.reference_id).toBe('NEW-1');
    expect(created[0]?.variants.map((v) => v.sku).sort()).toEqual(['TRIM-TEE-L', 'TRIM-TEE-S']);
  });
});
