import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { sampleSandboxes } from '../../helpers/sample-sandboxes.js';

/**
 * A plan that deletes products shows its deletes first, each by the product's name (with its
 * reference code), on the terminal, in report.md and on the review page: never below a screenful
 * of unchanged products, never by a code alone.
 */
const { dir, sandbox } = sampleSandboxes('mbulk-deletes-first-');

it('deletes come first and name the product: terminal lines, report.md, the review page', async () => {
  const { env, writes } = await sandbox();
  const file = join(dir, 'deletes.csv');
  // Unchanged products first (no column but the key), then an update, then the deletes.
  writeFileSync(
    file,
    [
      'reference_id,price,command',
      'ERP-0000001,,',
      'ERP-0000002,,',
      'ERP-0000003,5.00,',
      'ERP-0000006,,delete',
      'ERP-0000008,,delete',
      '',
    ].join('\n'),
  );
  const planned = await runCli(['import', 'products', file, '--allow-deletes'], env, dir);
  expect(planned.code, planned.stderr).toBe(0);
  const lines = planned.stdout.split('\n').filter((l) => /^ {2}(create|update|hide|delete) /.test(l));
  expect(lines.slice(0, 2)).toEqual([
    '  delete Enamel Pin Set (ERP-0000006) (row 5): product: removed',
    '  delete Long Sleeve Tee (ERP-0000008) (row 6): product: removed',
  ]);
  expect(lines[2]).toMatch(/^ {2}update ERP-0000003 \(row 4\): price: /);

  const runId = /^Run (\S+) ·/m.exec(planned.stdout)?.[1] as string;
  const runDir = join(dir, '.mbulk', 'runs', runId);
  const md = readFileSync(join(runDir, 'report.md'), 'utf8');
  const changes = md.slice(md.indexOf('## Changes'));
  expect(changes.indexOf('delete Enamel Pin Set (ERP-0000006)')).toBeGreaterThan(0);
  expect(changes.indexOf('delete Enamel Pin Set (ERP-0000006)')).toBeLessThan(
    changes.indexOf('update ERP-0000003'),
  );

  const page = readFileSync(join(runDir, 'report.html'), 'utf8');
  const actions = [...page.matchAll(/<article class="card[^"]*" data-action="([^"]+)"/g)].map((m) => m[1]);
  expect(actions.slice(0, 2)).toEqual(['delete', 'delete']);
  expect(actions.indexOf('unchanged')).toBeGreaterThan(1);
  expect(writes()).toEqual([]);
});
