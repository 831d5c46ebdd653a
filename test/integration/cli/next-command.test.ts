import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { sampleSandboxes } from '../../helpers/sample-sandboxes.js';

/**
 * The next command a plan's screens give is one that will not be refused: `runs show` of a planned
 * run names the flags its refusal needs (or `--replan` after a drift refusal), `mbulk apply` takes
 * every flag it names, and a dry run with price jumps names --allow-price-jumps. Witness: the
 * sandbox's request log (nothing written before the right command, the writes after it).
 */
const { dir, sandbox } = sampleSandboxes('mbulk-next-command-');
const CATALOG = resolve('samples/catalog.csv');

function sheet(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** `mbulk runs show RUN`: its next-step line. */
async function shownNext(runId: string, env: Record<string, string>): Promise<string | undefined> {
  const show = await runCli(['runs', 'show', runId], env, dir);
  expect(show.code, show.stderr).toBe(0);
  return /^(Apply with|Refused when planned|Continue with|Undo with)\b.*$/m.exec(show.stdout)?.[0];
}

function runIdOf(text: string): string {
  const id = /^Run (\S+) ·/m.exec(text)?.[1];
  expect(id, text).toBeDefined();
  return id as string;
}

describe('the next command of a planned run', () => {
  it('a plan the delete guard refuses: runs show names mbulk apply RUN --allow-deletes, which apply takes and writes', async () => {
    const { env, writes } = await sandbox();
    const planned = await runCli(['import', 'products', CATALOG, '--missing', 'delete'], env, dir);
    expect(planned.code).toBe(3);
    expect(planned.stderr).toContain('pass --allow-deletes');
    const runId = runIdOf(planned.stdout);
    expect(await shownNext(runId, env)).toBe(`Apply with: mbulk apply ${runId} --allow-deletes`);

    const refused = await runCli(['apply', runId, '--yes'], env, dir);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('--allow-deletes');
    expect(writes()).toEqual([]);

    const applied = await runCli(['apply', runId, '--yes', '--allow-deletes'], env, dir);
    expect(applied.code, applied.stderr).toBe(0);
    expect(writes().some((w) => w.method === 'DELETE')).toBe(true);
  });

  it('a plan with price jumps: the dry run and runs show name --allow-price-jumps, and the command they give applies', async () => {
    const { env, writes } = await sandbox();
    const file = sheet('jump.csv', ['reference_id,price', 'ERP-0000001,1190']);
    const planned = await runCli(['import', 'products', file], env, dir);
    expect(planned.code).toBe(0);
    const runId = runIdOf(planned.stdout);
    expect(planned.stdout).toContain(
      `Dry run: nothing was written. To write this plan: mbulk apply ${runId} --allow-price-jumps (or plan again and write: mbulk import products ${file} --apply --allow-price-jumps)`,
    );
    const next = await shownNext(runId, env);
    expect(next).toBe(`Apply with: mbulk apply ${runId} --allow-price-jumps`);
    const applied = await runCli(
      [...(next as string).replace('Apply with: mbulk ', '').split(' '), '--yes'],
      env,
      dir,
    );
    expect(applied.code, applied.stderr).toBe(0);
    expect(writes().map((w) => w.method)).toEqual(['PATCH']);
  });

  it('a plan a drift check refused: runs show names --replan, which applies it', async () => {
    const { s, env, writes } = await sandbox();
    const file = sheet('price.csv', ['reference_id,price', 'ERP-0000001,12.50']);
    const planned = await runCli(['import', 'products', file], env, dir);
    const runId = runIdOf(planned.stdout);
    expect(await shownNext(runId, env)).toBe(`Apply with: mbulk apply ${runId}`);
    s.store.updateProduct('prod_00000001', { price: 1290 });
    const refused = await runCli(['apply', runId, '--yes'], env, dir);
    expect(refused.code).toBe(3);
    expect(writes()).toEqual([]);
    const next = await shownNext(runId, env);
    expect(next).toMatch(new RegExp(`^Apply with: mbulk apply ${runId} --replan \\(the store changed`));
    const replanned = await runCli(['apply', runId, '--replan', '--yes'], env, dir);
    expect(replanned.code, replanned.stderr).toBe(0);
  });

  it('a stock plan refused by --max-changes names no apply: no flag of mbulk apply lifts it', async () => {
    const { env } = await sandbox();
    const planned = await runCli(
      ['import', 'stock', resolve('samples/stock.csv'), '--max-changes', '1'],
      env,
      dir,
    );
    expect(planned.code).toBe(3);
    const runId = runIdOf(planned.stdout);
    const next = await shownNext(runId, env);
    expect(next).toMatch(/^Refused when planned, and no flag lifts it: plan it again/);
  });
});
