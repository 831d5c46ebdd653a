import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type { Order, StoreSnapshot } from '../../../src/schema/index.js';

/**
 * Issue 37: an accounting feed's files are published together with its ledger. The built binary,
 * SIGKILLed at each step of a run's publish (`MBULK_TEST_KILL_AT`, a test-only hook), then run
 * again: across every file in the folder each invoice and credit note number appears exactly once,
 * and none is missing. And a same-day re-run never writes over the first run's payments file.
 */
const BIN = resolve('bin/mbulk.js');
const SAMPLE = JSON.parse(readFileSync(resolve('samples/store.json'), 'utf8')) as StoreSnapshot;
const FEED = [
  'export',
  'orders',
  'xero-{date}.csv',
  '--profile',
  'xero',
  '--tax-type',
  'SST 6%',
  '--incremental',
  '--feed',
  'books',
  '--payments',
  'pay-{date}.csv',
  '--accounts',
  'payment=090',
];
// Store zone UTC+8: 20:00Z is 04:00 the next day there.
const NIGHT_1 = '2027-03-01T20:00:00Z';
const NIGHT_2 = '2027-03-02T20:00:00Z';

let sandbox: RunningSandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: SAMPLE });
  dir = mkdtempSync(join(tmpdir(), 'mbulk-feed-kill-'));
});
afterAll(async () => {
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function mbulk(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Exit> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: cwd,
      XDG_DATA_HOME: join(cwd, '.data'),
      MERCHANT_API_URL: sandbox.url,
      MERCHANT_API_TOKEN: sandbox.token,
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on('close', (code, signal) => done({ code, signal, stdout, stderr })));
}

async function admin(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${sandbox.url}/__sandbox/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, path).toBe(200);
}

const rowsOf = (file: string): Record<string, string>[] =>
  Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true }).data;

/** Every document number in the folder's published files (dot-folders left out), by kind: number → times seen. */
function documents(cwd: string): { invoices: Map<string, number>; credits: Map<string, number> } {
  const invoices = new Map<string, number>();
  const credits = new Map<string, number>();
  for (const name of readdirSync(cwd)) {
    if (!name.startsWith('xero-') || /-(changes|totals)\.csv$/.test(name)) continue;
    const into = name.includes('-credit-notes') ? credits : invoices;
    // A document's rows share its number: count each document once per file.
    for (const n of new Set(rowsOf(join(cwd, name)).map((r) => r['*InvoiceNumber'] as string))) {
      into.set(n, (into.get(n) ?? 0) + 1);
    }
  }
  return { invoices, credits };
}

const isRevenue = (o: Order): boolean =>
  o.payment_status === 'paid' && o.order_status !== 'cancelled' && o.order_status !== 'draft';

describe('an accounting feed killed through its run', () => {
  it('SIGKILLed at 10 points (before, between and after each file), then run again: every invoice and credit note once, none missing', async () => {
    const base = join(dir, 'base');
    const first = await mbulk(FEED, mkdirp(base), { MBULK_NOW: NIGHT_1 });
    expect(first.code, first.stderr).toBe(0);

    // Day 2: a full refund of an invoiced order (a credit note), two new paid orders (invoices, payments).
    const revenue = SAMPLE.orders.filter(isRevenue);
    const refunded = revenue[0] as Order;
    await admin('clock', { now: '2027-03-02T10:00:00Z' });
    await admin(`orders/${refunded.id}/refund`, {});
    const fresh = [1, 2].map((n) => ({
      ...(structuredClone(refunded) as Order),
      id: `ord_kill_${n}`,
      number: String(8800 + n),
      name: `#${8800 + n}`,
      created_at: '2027-03-02T09:00:00.000Z',
      updated_at: '2027-03-02T09:00:00.000Z',
    }));
    await admin('orders', fresh);
    const expectedInvoices = [...revenue, ...fresh].map((o) => o.number).sort();
    const expectedCredits = [`CN-${refunded.number}-2`];

    const steps = [
      'staging',
      'staged',
      'marked',
      'published:1',
      'published:2',
      'published:3',
      'published:4',
      'published:5',
      'saved',
      'done',
    ];
    const outcomes = await Promise.all(
      steps.map(async (step) => {
        const cwd = join(dir, step.replace(':', '-'));
        cpSync(base, cwd, { recursive: true });
        const killed = await mbulk(FEED, cwd, { MBULK_NOW: NIGHT_2, MBULK_TEST_KILL_AT: step });
        const again = await mbulk(FEED, cwd, { MBULK_NOW: NIGHT_2 });
        return { step, cwd, killed, again };
      }),
    );
    for (const { step, cwd, killed, again } of outcomes) {
      expect(killed.signal, `${step}: ${killed.stderr}`).toBe('SIGKILL');
      expect(again.code, `${step}: ${again.stderr}`).toBe(0);
      const { invoices, credits } = documents(cwd);
      expect([...invoices.keys()].sort(), step).toEqual(expectedInvoices);
      expect([...credits.keys()].sort(), step).toEqual(expectedCredits);
      for (const [n, times] of [...invoices, ...credits]) expect(times, `${step}: ${n}`).toBe(1);
      // Nothing left over: no staging folder, no marker.
      expect(
        readdirSync(cwd).filter((f) => f.startsWith('.mbulk-feed-')),
        step,
      ).toEqual([]);
      expect(
        readdirSync(join(cwd, '.mbulk')).filter((f) => f.includes('.publish-')),
        step,
      ).toEqual([]);
    }
    // Killed after its commit point, the run is finished by the next one, which says so.
    const marked = outcomes.find((o) => o.step === 'marked');
    expect(marked?.again.stdout).toMatch(
      /Finished publishing an interrupted run of this feed first: 5 files/,
    );
  }, 120_000);
});

describe('a same-day re-run of an accounting feed', () => {
  it("numbers every file of the run, payments included, and keeps the first run's payments file", async () => {
    const cwd = mkdirp(join(dir, 'same-day'));
    const first = await mbulk(FEED, cwd, { MBULK_NOW: NIGHT_1 });
    expect(first.code, first.stderr).toBe(0);
    const payments = readFileSync(join(cwd, 'pay-2027-03-02.csv'), 'utf8');
    expect(rowsOf(join(cwd, 'pay-2027-03-02.csv')).length).toBeGreaterThan(0);

    const again = await mbulk(FEED, cwd, { MBULK_NOW: '2027-03-01T21:00:00Z' });
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'pay-2027-03-02.csv'), 'utf8')).toBe(payments);
    for (const f of [
      'xero-2027-03-02-run2.csv',
      'xero-2027-03-02-run2-totals.csv',
      'pay-2027-03-02-run2.csv',
    ])
      expect(existsSync(join(cwd, f)), f).toBe(true);
  });

  it('refuses a feed file name without {date} (exit 2), writing nothing', async () => {
    const cwd = mkdirp(join(dir, 'undated'));
    const undated = await mbulk(
      FEED.map((a) => (a === 'xero-{date}.csv' ? 'xero.csv' : a)),
      cwd,
      { MBULK_NOW: NIGHT_1 },
    );
    expect(undated.code).toBe(2);
    expect(undated.stderr).toContain('xero-{date}.csv');
    const payments = await mbulk(
      FEED.map((a) => (a === 'pay-{date}.csv' ? 'pay.csv' : a)),
      cwd,
      { MBULK_NOW: NIGHT_1 },
    );
    expect(payments.code).toBe(2);
    expect(payments.stderr).toContain('--payments pay.csv');
    expect(readdirSync(cwd).filter((f) => f.endsWith('.csv'))).toEqual([]);
  });
});

function mkdirp(path: string): string {
  mkdirSync(path, { recursive: true });
  return path;
}
