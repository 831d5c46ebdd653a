import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/server.js';
import { runCli } from '../../helpers/run-cli.js';

it('a plan.json with missing fields: apply and resume exit 2 "damaged plan, plan again", no write, no TypeError', async () => {
  const sandbox = await startSandbox({ seed: resolve('samples/store.json') });
  try {
    const env = { MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: sandbox.token };
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-damaged-plan-'));
    for (const [kind, file, drop] of [
      ['stock', 'stock.csv', 'changes'],
      ['products', resolve('samples/catalog.csv'), 'entries'],
    ] as const) {
      if (kind === 'stock') {
        const sku = sandbox.store
          .toSnapshot()
          .products.flatMap((p) => p.variants)
          .find((v) => v.inventory?.sku)?.inventory?.sku;
        writeFileSync(join(dir, file), `sku,quantity\n${sku},12345\n`);
      }
      const planned = await runCli(['import', kind, file, '--json'], env, dir);
      expect(planned.code, planned.stderr).toBe(0);
      const { runId } = planned.json<{ runId: string }>();
      const planFile = join(dir, '.mbulk/runs', runId, 'plan.json');
      const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { plan: Record<string, unknown> };
      delete plan.plan[drop];
      writeFileSync(planFile, JSON.stringify(plan));
      for (const argv of [
        ['apply', runId, '--yes'],
        ['runs', 'resume', runId, '--yes'],
      ]) {
        const r = await runCli(argv, env, dir);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain('damaged plan, plan again');
        expect(r.stderr).toContain(`plan.${drop} is missing`);
        expect(r.stderr).not.toMatch(/TypeError|Cannot read/);
      }
    }
    expect(sandbox.requestLog().filter((e) => e.method !== 'GET')).toEqual([]);
  } finally {
    await sandbox.close();
  }
});
