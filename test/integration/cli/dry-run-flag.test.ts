import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { sampleSandboxes } from '../../helpers/sample-sandboxes.js';

/**
 * `--dry-run` is taken wherever a command previews by default (runs rollback, messages send,
 * templates create, as import): it writes nothing, and with --apply it is a usage error (exit 2).
 * `mbulk apply RUN --dry-run` runs every check of an apply (the drift check included) and stops
 * before the first write. Witness: the sandbox's request log.
 */
const { dir, sandbox } = sampleSandboxes('mbulk-dry-run-');

function sheet(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('--dry-run', () => {
  it('runs rollback RUN --dry-run previews the rollback and writes nothing; with --apply it is exit 2', async () => {
    const { env, writes } = await sandbox();
    const file = sheet('rollback.csv', ['reference_id,price', 'ERP-0000001,12.50']);
    const applied = await runCli(['import', 'products', file, '--apply', '--yes'], env, dir);
    expect(applied.code, applied.stderr).toBe(0);
    const runId = /^Run (\S+) ·/m.exec(applied.stdout)?.[1] as string;
    const before = writes().length;

    const dry = await runCli(['runs', 'rollback', runId, '--dry-run'], env, dir);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('Dry run: nothing was written.');
    const both = await runCli(['runs', 'rollback', runId, '--dry-run', '--apply', '--yes'], env, dir);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--apply and --dry-run contradict each other');
    expect(writes().length).toBe(before);
  });

  it('messages send and templates create take --dry-run and send or submit nothing', async () => {
    const { env, writes } = await sandbox();
    const send = await runCli(
      ['messages', 'send', resolve('samples/recipients.csv'), '--template', 'order_update', '--dry-run'],
      env,
      dir,
    );
    expect(send.code, send.stderr).not.toBe(2);
    expect(send.stdout).toContain('Dry run: nothing was sent.');
    const create = await runCli(
      ['templates', 'create', resolve('samples/message-templates.csv'), '--dry-run'],
      env,
      dir,
    );
    expect(create.code, create.stderr).not.toBe(2);
    expect(create.stdout).toContain('Dry run: nothing was submitted.');
    const both = await runCli(
      ['templates', 'create', resolve('samples/message-templates.csv'), '--dry-run', '--apply'],
      env,
      dir,
    );
    expect(both.code).toBe(2);
    expect(writes()).toEqual([]);
  });

  it('apply RUN --dry-run checks the run against the store and writes nothing; a run that needs a flag is exit 3', async () => {
    const { s, env, writes } = await sandbox();
    const file = sheet('apply.csv', ['reference_id,price', 'ERP-0000001,12.50']);
    const planned = await runCli(['import', 'products', file], env, dir);
    const runId = /^Run (\S+) ·/m.exec(planned.stdout)?.[1] as string;

    const dry = await runCli(['apply', runId, '--dry-run'], env, dir);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(
      `Dry run: nothing was written; run ${runId} passed every check (the store is as planned). To write: mbulk apply ${runId}`,
    );
    expect(writes()).toEqual([]);
    expect((await runCli(['runs', 'show', runId], env, dir)).stdout).toContain(
      `${runId} · products · planned`,
    );

    // The store changed since planning: the dry run says so as the apply would (exit 3).
    s.store.updateProduct('prod_00000001', { price: 1290 });
    const drifted = await runCli(['apply', runId, '--dry-run'], env, dir);
    expect(drifted.code).toBe(3);
    expect(drifted.stdout).toContain('changed since planning');

    const jump = sheet('jump.csv', ['reference_id,price', 'ERP-0000002,1190']);
    const jumpRun = /^Run (\S+) ·/m.exec((await runCli(['import', 'products', jump], env, dir)).stdout)?.[1];
    const refused = await runCli(['apply', jumpRun as string, '--dry-run'], env, dir);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('would be refused without --allow-price-jumps');
    expect(
      (await runCli(['apply', jumpRun as string, '--dry-run', '--allow-price-jumps'], env, dir)).code,
    ).toBe(0);
    expect(writes()).toEqual([]);
  });
});
