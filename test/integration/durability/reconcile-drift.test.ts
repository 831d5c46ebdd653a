import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { twoCustomersStore } from '../../helpers/sample-sandboxes.js';
import { runCli } from '../../helpers/run-cli.js';

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const patchesOf = (s: RunningSandbox, id: string) =>
  s.requestLog().filter((e) => e.method === 'PATCH' && e.path.startsWith(`/api/v2/products/${id}`));

describe('runs resume --reconcile of a damaged journal', () => {
  for (const strict of [false, true]) {
    it(`re-sends no absolute write over a change made since planning (drifted row), settles the rest by re-reading, and a later resume/show sees a settled run${strict ? ' (strict sandbox: no get-one, one shared catalog read)' : ''}`, async () => {
      sandbox = await startSandbox({ seed: resolve('samples/store.json'), strict });
      const s = sandbox;
      const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
      const dir = mkdtempSync(join(tmpdir(), 'mbulk-reconcile-drift-'));
      writeFileSync(
        join(dir, 'catalog.csv'),
        'reference_id,name,price\nERP-0000001,,12.00\nERP-0000002,,63.00\nERP-0000003,,5.00\n',
      );
      const applied = await runCli(
        ['import', 'products', 'catalog.csv', '--apply', '--yes', '--json'],
        env,
        dir,
      );
      expect(applied.code, applied.stderr).toBe(0);
      const { runId } = applied.json<{ runId: string }>();
      expect(s.store.getProduct('prod_00000002').price).toBe(6300);

      // The journal is zero-filled; then someone changes product 2's price in the admin.
      const journal = join(dir, '.mbulk/runs', runId, 'journal.ndjson');
      writeFileSync(journal, Buffer.alloc(statSync(journal).size));
      s.store.updateProduct('prod_00000002', { price: 7777 });
      s.clearRequestLog();

      const reconciled = await runCli(['runs', 'resume', runId, '--yes', '--reconcile', '--json'], env, dir);
      // Their price is kept: nothing re-sent over it, the row is reported as drifted.
      expect(patchesOf(s, 'prod_00000002')).toEqual([]);
      expect(s.store.getProduct('prod_00000002').price).toBe(7777);
      expect(reconciled.code, reconciled.stderr).toBe(1);
      expect(reconciled.stdout).toMatch(/drifted: .*prod_00000002.* does not hold the planned change/);
      // The two that already hold the change are settled by the re-read, not re-sent.
      expect(s.requestLog().filter((e) => e.method !== 'GET')).toEqual([]);
      expect(s.store.getProduct('prod_00000001').price).toBe(1200);
      expect(s.store.getProduct('prod_00000003').price).toBe(500);
      const pages = s
        .requestLog()
        .filter((e) => e.method === 'GET' && /^\/api\/v2\/products(\?|$)/.test(e.path));
      const getOnes = s
        .requestLog()
        .filter((e) => e.method === 'GET' && /^\/api\/v2\/products\/prod_\d+$/.test(e.path));
      if (strict) {
        // Without get-one the three replays share catalog listings (both statuses), not a scan each.
        expect(pages.length).toBeLessThanOrEqual(4);
      } else {
        // With get-one each of the three replays re-reads its own product, and nothing scans the catalog.
        expect(getOnes.map((e) => e.path).sort()).toEqual(
          ['prod_00000001', 'prod_00000002', 'prod_00000003'].map((id) => `/api/v2/products/${id}`),
        );
        expect(pages).toEqual([]);
      }

      // Settled: a later resume no longer calls the journal damaged, and `runs show` says settled.
      // The run ended with a failure, so a plain resume goes on, and refuses the drifted product.
      const again = await runCli(['runs', 'resume', runId, '--yes', '--json'], env, dir);
      expect(again.code, again.stderr).toBe(3);
      expect(again.stderr).not.toContain('damaged');
      expect(again.json<{ drifted: { id: string }[] }>().drifted.map((d) => d.id)).toEqual(['prod_00000002']);
      const shown = await runCli(['runs', 'show', runId, '--json'], env, dir);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.json<{ journal: { state: string } }>().journal.state).toBe('settled');
      expect(s.requestLog().filter((e) => e.method !== 'GET')).toEqual([]);
    });
  }

  it('customers: a PATCH of unproven outcome is not re-sent over a change made since planning; one already holding the change is settled without a write', async () => {
    sandbox = await startSandbox({ seed: twoCustomersStore() });
    const s = sandbox;
    const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-reconcile-cus-'));
    writeFileSync(
      join(dir, 'customers.csv'),
      'id,name,phone\ncus_1,Aida Rahman,60121111111\ncus_2,Badrul Hisham,60122222222\n',
    );
    const applied = await runCli(
      ['import', 'customers', 'customers.csv', '--apply', '--yes', '--json'],
      env,
      dir,
    );
    expect(applied.code, applied.stderr).toBe(0);
    const { runId } = applied.json<{ runId: string }>();
    const journal = join(dir, '.mbulk/runs', runId, 'journal.ndjson');
    writeFileSync(journal, Buffer.alloc(statSync(journal).size));
    s.store.updateCustomer('cus_2', { name: 'Badrul (edited in the admin)' });
    s.clearRequestLog();

    const reconciled = await runCli(['runs', 'resume', runId, '--yes', '--reconcile', '--json'], env, dir);
    expect(s.requestLog().filter((e) => e.method !== 'GET')).toEqual([]);
    expect(s.store.getCustomer('cus_2').name).toBe('Badrul (edited in the admin)');
    expect(s.store.getCustomer('cus_1').name).toBe('Aida Rahman');
    expect(reconciled.code, reconciled.stderr).toBe(1);
    expect(reconciled.stdout).toMatch(/drifted: .*cus_2.* does not hold the planned change/);
  });
});
