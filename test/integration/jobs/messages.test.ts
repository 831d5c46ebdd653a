import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import { main } from '../../../src/cli/main.js';
import { applySavedRun } from '../../../src/jobs/apply-saved-run.js';
import { applyMessageRun, planMessageSend } from '../../../src/jobs/messages/message-send.js';
import type { RunningSandbox } from '../../../src/sandbox/server.js';
import { csv, messageSandboxes, phones, readResults, sends } from '../../helpers/message-sandbox.js';
import { captureStream as capture } from '../../helpers/run-cli.js';

const ROOT = join(import.meta.dirname, '../../..');
const SAMPLE_RECIPIENTS = join(ROOT, 'samples/recipients.csv');

/** to.csv in `dir`: `n` recipients (to, name, order_number) with distinct phones. */
function recipientsFile(dir: string, n: number): string {
  const file = join(dir, 'to.csv');
  writeFileSync(
    file,
    csv([['to', 'name', 'order_number'], ...phones(n).map((p, i) => [p, `C${i}`, `${i}`])]),
  );
  return file;
}

/**
 * A client of `s` that sees every template deleted and created again under its name: the same
 * name, status and parameters, another id.
 */
function templatesCreatedAgain(s: RunningSandbox): MerchantClient {
  const replaced = new MerchantClient({ baseUrl: s.url, token: s.token });
  const { templates } = replaced;
  Object.defineProperty(replaced, 'templates', {
    value: Object.assign(Object.create(templates) as typeof templates, {
      list: async function* (...args: Parameters<typeof templates.list>) {
        for await (const t of templates.list(...args)) yield { ...t, id: `${t.id}_new` };
      },
    }),
  });
  return replaced;
}

async function cli(argv: string[], s: RunningSandbox, cwd: string) {
  const stdout = capture();
  const stderr = capture();
  const code = await main(argv, {
    env: { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token },
    cwd,
    stdout: stdout.stream,
    stderr: stderr.stream,
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const setup = messageSandboxes();

async function approve(s: RunningSandbox, name: string): Promise<void> {
  const res = await fetch(`${s.url}/__sandbox/templates/${name}/review`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'APPROVED' }),
  });
  expect(res.status).toBe(200);
}

describe('mbulk messages send', () => {
  it('refuses a PENDING or unknown template with exit 3 before anything is sent', async () => {
    const { s, dir } = await setup();
    const file = join(dir, 'to.csv');
    writeFileSync(
      file,
      csv([
        ['to', 'name', 'code'],
        ['012-345 6789', 'Aina', 'BEANS15'],
      ]),
    );
    expect(s.store.getTemplate('weekend_promo')?.status).toBe('PENDING');
    const r = await cli(
      ['messages', 'send', file, '--template', 'weekend_promo', '--apply', '--yes'],
      s,
      dir,
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('weekend_promo" is PENDING');
    const j = await cli(
      ['messages', 'send', file, '--template', 'no_such_template', '--apply', '--yes', '--json'],
      s,
      dir,
    );
    expect(j.code).toBe(3);
    expect(JSON.parse(j.stdout)).toMatchObject({ ok: false });
    expect(sends(s)).toEqual([]);
    expect(s.store.messages()).toHaveLength(0);
    // Refused before planning: no run directory either.
    expect(existsSync(join(dir, '.mbulk', 'runs'))).toBe(false);
  });

  it('checks every row, resolves customers, sends a repeated recipient once and previews', async () => {
    const { s, client, dir, runsRoot } = await setup();
    const file = join(dir, 'to.csv');
    writeFileSync(
      file,
      csv([
        ['to', 'customer_id', 'name', 'order_number'],
        ['012-784 1025', '', 'Siti', '1001'], // 2
        ['', 'cus_0000000t', 'Budi', '1002'], // 3
        ['+60 12-784 1025', '', 'Siti', '1001'], // 4: same phone and parameters as row 2
        ['12', '', 'Short', '1003'], // 5: bad phone
        ['019-046 9679', '', '', '1005'], // 6: blank parameter
        ['', 'cus_nobody', 'Nobody', '1006'], // 7: unknown customer
        ['', '', 'Nobody', '1007'], // 8: no recipient
        ['', 'cus_0000000f', 'Sarah', '1008'], // 9
      ]),
    );
    const planned = await planMessageSend({
      client,
      file,
      runsRoot,
      target: 'test',
      template: 'order_update',
    });
    const { plan, preview } = planned.file;
    expect(plan.sends.map((x) => [x.rowNumber, x.to])).toEqual([
      [2, '60127841025'],
      [3, '6281386721066'],
      [9, '14154937831'],
    ]);
    expect(plan.duplicates).toEqual([
      { sheet: 'to.csv', rowNumber: 4, firstRow: 2, to: '60127841025', sameParameters: true },
    ]);
    expect(
      plan.issues.filter((i) => i.severity === 'error').map((i) => [i.rowNumber, i.code, i.column]),
    ).toEqual([
      [5, 'phone_invalid', 'A'],
      [6, 'missing_parameter', 'C'],
      [8, 'missing_recipient', 'A'],
      [7, 'unknown_customer', 'B'],
    ]);
    expect(preview.map((p) => p.text)).toEqual([
      'Order update\nHi Siti, your order #1001 has been updated. Reply to this message if you have any questions.\nKopi & Kain',
      'Order update\nHi Budi, your order #1002 has been updated. Reply to this message if you have any questions.\nKopi & Kain',
      'Order update\nHi Sarah, your order #1008 has been updated. Reply to this message if you have any questions.\nKopi & Kain',
    ]);
    // The customers were listed once.
    expect(s.requestLog().filter((e) => e.path.startsWith('/api/v2/customers'))).toHaveLength(1);

    // Invalid rows: --apply sends nothing unless --skip-invalid.
    s.clearRequestLog();
    const refused = await cli(
      ['messages', 'send', file, '--template', 'order_update', '--apply', '--yes'],
      s,
      dir,
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('row 5, column A (to)');
    expect(refused.stderr).toContain('nothing was sent');
    await expect(applyMessageRun(planned.run, { client })).rejects.toMatchObject({ exitCode: 1 });
    expect(sends(s)).toEqual([]);

    const r = await cli(
      [
        'messages',
        'send',
        file,
        '--template',
        'order_update',
        '--apply',
        '--yes',
        '--skip-invalid',
        '--json',
      ],
      s,
      dir,
    );
    expect(r.code).toBe(1); // rows failed validation
    const doc = JSON.parse(r.stdout) as { sent: number; runDir: string };
    expect(doc.sent).toBe(3);
    expect(s.store.messages().map((m) => [m.to, m.parameters['name']])).toEqual([
      ['60127841025', 'Siti'],
      ['6281386721066', 'Budi'],
      ['14154937831', 'Sarah'],
    ]);
    const results = readResults(join(doc.runDir, 'results.csv'));
    const ids = new Map(s.store.messages().map((m) => [m.to, m.id]));
    expect(
      results.map((x) => [x['row'], x['outcome'], x['entity_id'], x['message_status'], x['send_result']]),
    ).toEqual([
      ['2', 'created', ids.get('60127841025'), 'sent', 'sent'],
      ['3', 'created', ids.get('6281386721066'), 'sent', 'sent'],
      ['4', 'skipped', '', '', 'duplicate of row 2'],
      ['5', 'invalid', '', '', 'not sent: invalid row'],
      ['6', 'invalid', '', '', 'not sent: invalid row'],
      ['7', 'invalid', '', '', 'not sent: invalid row'],
      ['8', 'invalid', '', '', 'not sent: invalid row'],
      ['9', 'created', ids.get('14154937831'), 'sent', 'sent'],
    ]);
    expect(results[2]?.['error_code']).toBe('duplicate_recipient');

    // --allow-duplicates sends row 4 too.
    const dup = await planMessageSend({
      client,
      file,
      runsRoot,
      target: 'test',
      template: 'order_update',
      allowDuplicates: true,
    });
    expect(dup.file.plan.sends.map((x) => x.rowNumber)).toEqual([2, 3, 4, 9]);
  });

  it('two rows for one phone with different orders are two messages; identical rows are one', async () => {
    const { s, client, dir, runsRoot } = await setup();
    const file = join(dir, 'to.csv');
    writeFileSync(
      file,
      csv([
        ['to', 'name', 'order_number'],
        ['012-784 1025', 'Siti', '1001'], // 2
        ['+60 12-784 1025', 'Siti', '1009'], // 3: same phone, another order: another message
        ['60127841025', 'Siti', '1001'], // 4: the same message as row 2
        ['60127841025', ' Siti ', '1009'], // 5: the same message as row 3 (cells are trimmed)
      ]),
    );
    const r = await cli(
      ['messages', 'send', file, '--template', 'order_update', '--apply', '--yes', '--json'],
      s,
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { runId: string; runDir: string };
    expect(doc).toMatchObject({ sent: 2, counts: { send: 2, duplicates: 2 } });
    // The witness: the sandbox got two sends, with each order, under two idempotency keys.
    const log = sends(s);
    expect(log).toHaveLength(2);
    expect(new Set(log.map((e) => e.idempotency_key)).size).toBe(2);
    expect(s.store.messages().map((m) => [m.to, m.parameters['order_number']])).toEqual([
      ['60127841025', '1001'],
      ['60127841025', '1009'],
    ]);
    const results = readResults(join(doc.runDir, 'results.csv'));
    expect(results.map((x) => [x['row'], x['outcome'], x['key'], x['send_result']])).toEqual([
      ['2', 'created', '60127841025', 'sent'],
      ['3', 'created', '60127841025', 'sent'],
      ['4', 'skipped', '60127841025', 'duplicate of row 2'],
      ['5', 'skipped', '60127841025', 'duplicate of row 3'],
    ]);

    // "Already sent" has the same identity: a new order for that phone goes, the old ones do not.
    writeFileSync(
      file,
      csv([
        ['to', 'name', 'order_number'],
        ['012-784 1025', 'Siti', '1009'],
        ['012-784 1025', 'Siti', '1010'],
      ]),
    );
    const planned = await planMessageSend({
      client,
      file,
      runsRoot,
      target: 'test',
      template: 'order_update',
    });
    expect(planned.file.plan.sends.map((x) => [x.rowNumber, x.parameters['order_number']])).toEqual([
      [3, '1010'],
    ]);
    const applied = await applyMessageRun(planned.run, { client });
    expect(applied).toMatchObject({ sent: 1, alreadySent: 1 });
    expect(s.store.messages().map((m) => m.parameters['order_number'])).toEqual(['1001', '1009', '1010']);
    const again = readResults(planned.run.file('results'));
    expect(again.map((x) => [x['row'], x['send_result']])).toEqual([
      ['2', `already sent in run ${doc.runId}`],
      ['3', 'sent'],
    ]);
  });

  it('a run planned by an older version (phones compared alone) still applies, and says what it skipped', async () => {
    const { s, client, dir, runsRoot } = await setup();
    const file = join(dir, 'to.csv');
    writeFileSync(
      file,
      csv([
        ['to', 'name', 'order_number'],
        ['012-784 1025', 'Siti', '1001'],
        ['012-784 1025', 'Siti', '1001'],
      ]),
    );
    const planned = await planMessageSend({
      client,
      file,
      runsRoot,
      target: 'test',
      template: 'order_update',
    });
    // What an older plan.json holds: a duplicate without `to` or `sameParameters`.
    const plan = JSON.parse(readFileSync(planned.run.file('plan'), 'utf8')) as {
      plan: { duplicates: Record<string, unknown>[] };
    };
    plan.plan.duplicates = plan.plan.duplicates.map(({ sheet, rowNumber, firstRow }) => ({
      sheet,
      rowNumber,
      firstRow,
    }));
    writeFileSync(planned.run.file('plan'), JSON.stringify(plan));
    const applied = await applyMessageRun(RunDirectory.load(planned.run.dir), { client });
    expect(applied).toMatchObject({ sent: 1 });
    expect(sends(s)).toHaveLength(1);
    const results = readResults(planned.run.file('results'));
    expect(results[1]).toMatchObject({ outcome: 'skipped', send_result: 'duplicate of row 2' });
    expect(results[1]?.['error_message']).toContain('plan the sheet again');
  });

  it('a re-run (or a second plan of the same sheet) never messages anyone twice; --resend does', async () => {
    const { s, client, dir, runsRoot } = await setup();
    const file = join(dir, 'to.csv');
    const rows = [['to', 'name', 'order_number'], ...phones(3).map((p, i) => [p, `C${i}`, `${i}`])];
    writeFileSync(file, csv(rows));
    const send = (...extra: string[]) =>
      cli(
        ['messages', 'send', file, '--template', 'order_update', '--apply', '--yes', '--json', ...extra],
        s,
        dir,
      );

    const first = await send();
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ sent: 3, alreadySent: 0 });
    expect(sends(s)).toHaveLength(3);

    // The same command again: refused, the sheet was sent by that run (issue 37).
    const refused = await send();
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toContain(`by run ${(JSON.parse(first.stdout) as { runId: string }).runId}`);
    expect(sends(s)).toHaveLength(3);

    // Planned again (--again): nothing is sent, every row says why.
    const again = await send('--again');
    expect(again.code, again.stderr).toBe(0);
    const doc = JSON.parse(again.stdout) as { sent: number; alreadySent: number; runDir: string };
    expect(doc).toMatchObject({ sent: 0, alreadySent: 3 });
    expect(sends(s)).toHaveLength(3);
    const results = readResults(join(doc.runDir, 'results.csv'));
    expect(results.map((x) => [x['row'], x['outcome'], x['error_code']])).toEqual([
      ['2', 'skipped', 'already_sent'],
      ['3', 'skipped', 'already_sent'],
      ['4', 'skipped', 'already_sent'],
    ]);
    const firstRun = (JSON.parse(first.stdout) as { runId: string }).runId;
    expect(results.map((x) => x['send_result'])).toEqual(
      Array.from({ length: 3 }, () => `already sent in run ${firstRun}`),
    );

    // Two plans of one grown sheet, both made before either is applied: the recipient they share
    // is messaged by the first apply only.
    writeFileSync(file, csv([...rows, ['013-222 3333', 'New', '9']]));
    const p1 = await planMessageSend({ client, file, runsRoot, target: 'test', template: 'order_update' });
    const p2 = await planMessageSend({ client, file, runsRoot, target: 'test', template: 'order_update' });
    expect(p1.file.plan.sends.map((x) => x.rowNumber)).toEqual([5]);
    expect(p1.file.plan.alreadySent?.map((x) => x.rowNumber)).toEqual([2, 3, 4]);
    expect(await applyMessageRun(p1.run, { client })).toMatchObject({ sent: 1, alreadySent: 3 });
    expect(await applyMessageRun(p2.run, { client })).toMatchObject({ sent: 0, alreadySent: 4 });
    expect(sends(s)).toHaveLength(4);
    expect(new Set(s.store.messages().map((m) => m.to)).size).toBe(4);

    // Asked for explicitly, the same messages go again.
    const resent = await send('--resend');
    expect(JSON.parse(resent.stdout)).toMatchObject({ sent: 4, alreadySent: 0 });
    expect(s.store.messages()).toHaveLength(8);
  });

  it("the blank templates/recipients.csv fits the sample store's order_update template", async () => {
    const { client, runsRoot } = await setup();
    const planned = await planMessageSend({
      client,
      file: join(ROOT, 'templates/recipients.csv'),
      runsRoot,
      target: 'test',
      template: 'order_update',
    });
    expect(planned.file.plan.issues).toEqual([]);
    expect(planned.file.rows).toBe(0);
  });

  it('needs every parameter column (exit 2) and refuses more than --max (exit 3)', async () => {
    const { s, dir } = await setup();
    const file = join(dir, 'to.csv');
    writeFileSync(
      file,
      csv([
        ['to', 'name'],
        ['012-784 1025', 'Siti'],
      ]),
    );
    const missing = await cli(['messages', 'send', file, '--template', 'order_update'], s, dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('order_number');

    const over = await cli(
      ['messages', 'send', SAMPLE_RECIPIENTS, '--template', 'order_update', '--apply', '--yes', '--max', '5'],
      s,
      dir,
    );
    expect(over.code).toBe(3);
    expect(over.stderr).toContain('more than --max 5');
    expect(sends(s)).toEqual([]);

    const ok = await cli(
      ['messages', 'send', SAMPLE_RECIPIENTS, '--template', 'order_update', '--max', '6'],
      s,
      dir,
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('Hi Siti, your order #1001 has been updated');
    expect(sends(s)).toEqual([]);
  });

  it('stops at the first send refused because the template was paused after planning', async () => {
    const { s, client, dir, runsRoot } = await setup();
    const file = recipientsFile(dir, 30);
    const planned = await planMessageSend({
      client,
      file,
      runsRoot,
      target: 'test',
      template: 'order_update',
    });
    s.store.reviewTemplate('order_update', { status: 'PAUSED' });
    const applied = await applyMessageRun(planned.run, { client, concurrency: 2 });
    expect(applied).toMatchObject({ status: 'aborted', sent: 0 });
    expect(sends(s).length).toBeLessThanOrEqual(2);
    expect(applied.failedRows).toHaveLength(30);
  });

  it('refuses to send when the template was replaced by another of the same name (its id, not its name, is the one planned)', async () => {
    const { s, client, dir, runsRoot } = await setup();
    const file = recipientsFile(dir, 3);
    const planned = await planMessageSend({
      client,
      file,
      runsRoot,
      target: 'test',
      template: 'order_update',
    });
    // The store now holds another template named order_update (deleted and created again): same
    // name, status and parameters, another id.
    const replaced = templatesCreatedAgain(s);
    const result = await applySavedRun(planned.run, { client: replaced, target: 'test', lock: false });
    expect(result).toMatchObject({ applied: false, refused: 'drift' });
    const drifted = 'drifted' in result ? result.drifted : [];
    expect(drifted.map((d) => d.reason)).toEqual([
      `the template was replaced by another of the same name (${planned.file.template.id}_new)`,
    ]);
    expect(sends(s)).toHaveLength(0);
  });

  it("a template created again under the same name is another message: the old template's sends are not 'already sent'", async () => {
    const { s, client, dir, runsRoot } = await setup();
    const file = recipientsFile(dir, 3);
    const plan = (c: MerchantClient) =>
      planMessageSend({ client: c, file, runsRoot, target: 'test', template: 'order_update' });
    const first = await plan(client);
    expect(await applyMessageRun(first.run, { client })).toMatchObject({ sent: 3 });

    // Deleted and created again under its name: another id (maybe another text).
    const replaced = templatesCreatedAgain(s);
    // Planned twice before either is applied: the second plan's apply counts the first's sends
    // (same template), not the old template's.
    const again = await plan(replaced);
    const twin = await plan(replaced);
    expect(again.file.plan.sends.map((x) => x.rowNumber)).toEqual([2, 3, 4]);
    expect(again.file.plan.alreadySent).toEqual([]);
    expect(await applyMessageRun(again.run, { client: replaced })).toMatchObject({ sent: 3, alreadySent: 0 });
    expect(await applyMessageRun(twin.run, { client: replaced })).toMatchObject({ sent: 0, alreadySent: 3 });
    expect(sends(s)).toHaveLength(6);

    expect(first.run.meta.options['templateId']).toBe(first.file.template.id);
    // A run recorded before run.json named the template's id: its plan.json's template says it.
    const meta = JSON.parse(readFileSync(first.run.file('meta'), 'utf8')) as {
      options: Record<string, unknown>;
    };
    delete meta.options['templateId'];
    writeFileSync(first.run.file('meta'), JSON.stringify(meta));
    const old = await plan(client);
    expect(old.file.plan.alreadySent?.map((x) => [x.rowNumber, x.runId])).toEqual([
      [2, first.run.id],
      [3, first.run.id],
      [4, first.run.id],
    ]);
    // ...and without a plan.json, by its name (a message skipped is said; one sent twice is not undone).
    writeFileSync(first.run.file('plan'), '');
    expect((await plan(replaced)).file.plan.alreadySent?.map((x) => x.runId)).toContain(first.run.id);
  });

  it('after approval, delivers exactly 200 messages through 10% failures and 5% dropped connections', async () => {
    const { s, client, dir } = await setup({ failRate: 0.1, dropRate: 0.05, faultSeed: 42 });
    await client.templates.create({
      name: 'spring_sale',
      category: 'MARKETING',
      body: 'Hi {{name}}, use code {{code}} for 10% off',
      parameter_examples: { name: 'Aina', code: 'SPRING10' },
    });
    const file = join(dir, 'to.csv');
    const numbers = phones(200);
    writeFileSync(
      file,
      csv([['to', 'name', 'code'], ...numbers.map((p, i) => [p, `Customer ${i}`, `C${i}`])]),
    );

    const pending = await cli(
      ['messages', 'send', file, '--template', 'spring_sale', '--apply', '--yes'],
      s,
      dir,
    );
    expect(pending.code).toBe(3);
    expect(sends(s)).toEqual([]);

    await approve(s, 'spring_sale');
    const r = await cli(
      [
        'messages',
        'send',
        file,
        '--template',
        'spring_sale',
        '--apply',
        '--yes',
        '--json',
        '--concurrency',
        '8',
      ],
      s,
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, sent: 200, failed: 0 });

    const delivered = s.store.messages().filter((m) => m.template === 'spring_sale');
    expect(delivered).toHaveLength(200);
    expect(new Set(delivered.map((m) => m.to)).size).toBe(200);
    // The faults did happen, and every retry reused its send's key.
    const log = sends(s);
    const faults = log.filter((e) => e.outcome !== 'applied' && e.outcome !== 'replayed');
    expect(faults.length).toBeGreaterThan(10);
    expect(log.some((e) => e.outcome === 'dropped_after')).toBe(true);
    const acted = log.filter((e) => e.outcome === 'applied' || e.outcome === 'dropped_after');
    expect(new Set(acted.map((e) => e.idempotency_key)).size).toBe(200);
    expect(log.filter((e) => e.status === 400)).toEqual([]);
  }, 120_000);
});
