import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_STORE } from '../../helpers/sample-sandboxes.js';
import { fileSandbox, startMcp, type FileSandbox, type McpSession } from './mcp-helpers.js';

/**
 * Issues 37 and 40: the MCP `export` tool through the SDK's client against the built `mbulk mcp`:
 * the CLI's order-export options, files only inside `--exports-dir` under names never reused
 * (two calls in the same second write two files), amounts in currency units that tie to the files,
 * refusals in the tool's terms, and no read-only annotation on a tool that writes files.
 */
let sb: FileSandbox;
let mcp: McpSession;
let exportsDir: string;

beforeAll(async () => {
  sb = await fileSandbox();
  const cwd = mkdtempSync(join(sb.dir, 'work-'));
  exportsDir = join(cwd, 'out');
  mcp = await startMcp(cwd, sb.env, ['--exports-dir', 'out']);
});
afterAll(async () => {
  await mcp?.close();
  await sb?.close();
});

const rowsOf = (file: string): Record<string, string>[] =>
  Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true }).data;
const minor = (text: string | undefined): number => Math.round(Number(text ?? 'NaN') * 100);
const inside = (file: string): boolean => !relative(exportsDir, file).startsWith('..');

describe('mbulk mcp export', () => {
  it('is not annotated read-only: it writes files', async () => {
    const { tools } = await mcp.client.listTools();
    const tool = tools.find((t) => t.name === 'export');
    expect(tool?.annotations?.readOnlyHint).toBe(false);
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['status', 'payment_status', 'revenue', 'basis', 'accounting', 'incremental']),
    );
  });

  it('two calls of the same kind at once write two files, each holding what its figures say', async () => {
    const [a, b] = await Promise.all([
      mcp.call('export', { kind: 'orders', format: 'csv', status: ['completed'] }),
      mcp.call('export', { kind: 'orders', format: 'csv' }),
    ]);
    expect(a?.isError, a?.text).toBe(false);
    expect(b?.isError, b?.text).toBe(false);
    const fileA = (a?.data['files'] as string[])[0] as string;
    const fileB = (b?.data['files'] as string[])[0] as string;
    expect(fileA).not.toBe(fileB);
    const completed = SAMPLE_STORE.orders.filter((o) => o.order_status === 'completed').length;
    expect(rowsOf(fileA)).toHaveLength(completed);
    expect((a?.data['figures'] as { orders: number }).orders).toBe(completed);
    expect(rowsOf(fileB)).toHaveLength(SAMPLE_STORE.orders.length);
    for (const f of [...(a?.data['files'] as string[]), ...(b?.data['files'] as string[])])
      expect(inside(f), f).toBe(true);
  });

  it("takes the accounting options; the totals it returns, in currency units, are the files' sums", async () => {
    const r = await mcp.call('export', {
      kind: 'orders',
      revenue: true,
      accounting: { profile: 'xero', tax_type: 'SST 6%', accounts: 'sales=4000,payment=090', payments: true },
    });
    expect(r.isError, r.text).toBe(false);
    const files = r.data['files'] as string[];
    for (const f of files) expect(inside(f), f).toBe(true);
    const totals = r.data['totals'] as {
      file: string;
      document: string;
      count: number;
      total: { amount: string; currency: string };
    }[];
    const invoices = totals.find((t) => t.document === 'invoices');
    const payments = totals.find((t) => t.document === 'payments');
    expect(invoices?.total.currency).toBe(SAMPLE_STORE.me.currency);
    const paid = rowsOf(payments?.file as string);
    expect(paid).toHaveLength(payments?.count ?? -1);
    expect(paid.reduce((s, p) => s + minor(p['Amount']), 0)).toBe(minor(payments?.total.amount));
    const rows = rowsOf(invoices?.file as string);
    expect(new Set(rows.map((row) => row['*InvoiceNumber'])).size).toBe(invoices?.count);
    expect(rows.every((row) => row['*AccountCode'] !== '200')).toBe(true);
    const revenue = (
      r.data['summary'] as { section: string; total_amount: { amount: string } | null }[]
    ).find((s) => s.section === 'revenue');
    expect(revenue?.total_amount?.amount).toMatch(/^\d+\.\d\d$/);
  });

  it('runs an incremental feed in the exports directory: the second run exports nothing new, into another file', async () => {
    const first = await mcp.call('export', {
      kind: 'orders',
      format: 'csv',
      incremental: { feed: 'nightly' },
    });
    expect(first.isError, first.text).toBe(false);
    expect((first.data['figures'] as { orders: number }).orders).toBe(SAMPLE_STORE.orders.length);
    const second = await mcp.call('export', {
      kind: 'orders',
      format: 'csv',
      incremental: { feed: 'nightly' },
    });
    expect(second.isError, second.text).toBe(false);
    expect(second.data['incremental']).toMatchObject({ feed: 'nightly', resumed: true });
    expect((second.data['figures'] as { orders: number }).orders).toBe(0);
    expect((second.data['files'] as string[])[0]).not.toBe((first.data['files'] as string[])[0]);
    expect(rowsOf((first.data['files'] as string[])[0] as string)).toHaveLength(SAMPLE_STORE.orders.length);
    // Its watermark is kept inside the exports directory; no staging folder is left.
    expect(readdirSync(join(exportsDir, '.mbulk'))).toContain('exports.json');
    expect(readdirSync(exportsDir).filter((f) => f.startsWith('.mbulk-feed-'))).toEqual([]);
  });

  it("refuses in the tool's own terms", async () => {
    const bad = await mcp.call('export', { kind: 'orders', status: ['shipped-to-mars'] });
    expect(bad.isError).toBe(true);
    expect(bad.data['message']).toMatch(/status/);
    expect(bad.data['message']).not.toMatch(/--[a-z]/);
    const file = await mcp.call('export', {
      kind: 'orders',
      accounting: { profile: 'xero', tax_type: 'SST 6%', accounts: '/etc/passwd' },
    });
    expect(file.isError).toBe(true);
    expect(file.data['message']).toContain('accounting.accounts');
  });
});
