import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../../src/api/idempotency-key.js';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { main } from '../../../src/cli/main.js';
import {
  applyTemplateRun,
  planTemplateImport,
  readSubmittedTemplates,
  readTemplateStatus,
  submittedTemplatesPath,
  watchTemplateStatus,
} from '../../../src/jobs/templates/template-import.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../src/sandbox/server.js';
import { captureStream as capture } from '../../helpers/run-cli.js';

const SAMPLE_STORE = join(import.meta.dirname, '../../../samples/store.json');
const SAMPLE_TEMPLATES = join(import.meta.dirname, '../../../samples/message-templates.csv');

const HEADER = [
  'name',
  'category',
  'language',
  'header',
  'header_image_url',
  'body',
  'footer',
  'button_1_type',
  'button_1_text',
  'example_name',
  'example_code',
  'button_1_url',
] as const;
type Row = Partial<Record<(typeof HEADER)[number], string>>;

function csvText(header: readonly string[], rows: Row[]): string {
  return Papa.unparse({
    fields: [...header],
    data: rows.map((r) => header.map((h) => r[h as keyof Row] ?? '')),
  });
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

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function setup(options: Omit<SandboxOptions, 'seed'> = {}) {
  sandbox = await startSandbox({ seed: SAMPLE_STORE, ...options });
  const client = new MerchantClient({
    baseUrl: sandbox.url,
    token: sandbox.token,
    retryDelay: { initialDelayMs: 5, maxDelayMs: 50 },
  });
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-templates-'));
  return { s: sandbox, client, dir, runsRoot: join(dir, '.mbulk', 'runs') };
}

const good: Row = {
  name: 'order_ready',
  category: 'utility',
  body: 'Hi {{name}}, ready',
  example_name: 'Aina',
};

/** One row per rule of the spec, each breaking only that rule, and the cell it must be reported in. */
const BAD_ROWS: [rule: string, row: Row, code: string, column: string | undefined][] = [
  ['name pattern', { ...good, name: 'Order Ready' }, 'invalid_name', 'A'],
  ['name length', { ...good, name: 'a'.repeat(513) }, 'invalid_name', 'A'],
  ['name blank', { ...good, name: '' }, 'invalid_name', 'A'],
  ['category', { ...good, name: 'r_category', category: 'PROMO' }, 'invalid_category', 'B'],
  ['body blank', { ...good, name: 'r_body_blank', body: '', example_name: '' }, 'invalid_body', 'F'],
  [
    'body length',
    { ...good, name: 'r_body_len', body: `Hi {{name}}${'x'.repeat(1020)}` },
    'invalid_body',
    'F',
  ],
  ['header length', { ...good, name: 'r_header_len', header: 'h'.repeat(61) }, 'invalid_header', 'D'],
  ['header variable', { ...good, name: 'r_header_var', header: 'Hi {{name}}' }, 'invalid_header', 'D'],
  ['footer length', { ...good, name: 'r_footer_len', footer: 'f'.repeat(61) }, 'invalid_footer', 'G'],
  ['footer variable', { ...good, name: 'r_footer_var', footer: 'Bye {{x}}' }, 'invalid_footer', 'G'],
  [
    'header and image',
    { ...good, name: 'r_both', header: 'Hi', header_image_url: 'https://img.test/a.png' },
    'invalid_header_image_url',
    'E',
  ],
  [
    'image not https',
    { ...good, name: 'r_http', header_image_url: 'http://img.test/a.png' },
    'invalid_header_image_url',
    'E',
  ],
  [
    'image not JPEG/PNG',
    { ...good, name: 'r_gif', header_image_url: 'https://img.test/a.gif' },
    'invalid_header_image_url',
    'E',
  ],
  ['missing example', { ...good, name: 'r_no_example', example_name: '' }, 'missing_example', 'J'],
  ['unknown example', { ...good, name: 'r_extra_example', example_code: 'X1' }, 'unknown_example', 'K'],
  [
    'body starts with a variable',
    { ...good, name: 'r_var_start', body: '{{name}}, your order is ready' },
    'variable_at_edge',
    'F',
  ],
  [
    'body ends with a variable',
    { ...good, name: 'r_var_end', body: 'Your order is ready, {{name}}' },
    'variable_at_edge',
    'F',
  ],
  ['language not a code', { ...good, name: 'r_language', language: 'English' }, 'invalid_language', 'C'],
  [
    'URL button without a URL',
    { ...good, name: 'r_url_button', button_1_type: 'URL', button_1_text: 'Track' },
    'missing_button_url',
    'L',
  ],
  ['duplicate name in the sheet', { ...good }, 'duplicate_name', 'A'],
  [
    'name of an existing template',
    { ...good, name: 'order_update', body: 'Hi {{name}}, something else' },
    'name_taken',
    'A',
  ],
];

describe('mbulk templates create', () => {
  it('reports one failing row per rule with its cell, and an --apply sends zero requests', async () => {
    const { s, client, dir, runsRoot } = await setup();
    const file = join(dir, 'templates.csv');
    writeFileSync(file, csvText(HEADER, [good, ...BAD_ROWS.map(([, row]) => row)]));

    const planned = await planTemplateImport({ client, file, runsRoot, target: 'test' });
    const errors = planned.file.plan.issues.filter((i) => i.severity === 'error');
    BAD_ROWS.forEach(([rule, , code, column], n) => {
      const rowNumber = n + 3;
      const found = errors.filter((i) => i.rowNumber === rowNumber);
      expect(
        found.map((i) => i.code),
        rule,
      ).toContain(code);
      if (column) expect(found.find((i) => i.code === code)?.column, rule).toBe(column);
    });
    // Every bad row is invalid; only the good row is planned.
    expect(planned.file.plan.counts).toMatchObject({ create: 1, invalid: BAD_ROWS.length });
    expect(planned.file.plan.entries.map((e) => e.rowNumber)).toEqual([2]);

    s.clearRequestLog();
    const r = await cli(['templates', 'create', file, '--apply', '--yes'], s, dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('nothing was submitted');
    expect(r.stdout).toContain('row 3, column A (name)');
    const both = BAD_ROWS.findIndex(([rule]) => rule === 'header and image') + 3;
    expect(r.stdout).toContain(`row ${both}, column E (header_image_url)`);
    // The terminal lists the first 20 errors; the rest are in report.md.
    expect(r.stdout).toContain(`… and ${BAD_ROWS.length - 20} more`);
    // A blank example cell is named as such, not reported as a missing column.
    const blankExample = BAD_ROWS.findIndex(([rule]) => rule === 'missing example') + 3;
    expect(r.stdout).toContain(`the example cell J${blankExample} (example_name) is blank`);
    expect(r.stdout).not.toContain('add a column example_name');
    expect(s.requestLog().filter((e) => e.method === 'POST')).toEqual([]);
    // The library refuses too.
    await expect(applyTemplateRun(planned.run, { client })).rejects.toMatchObject({ exitCode: 1 });
    expect(s.requestLog().filter((e) => e.method === 'POST')).toEqual([]);
  });

  it('the blank templates/message-templates.csv has every column the sheet knows', async () => {
    const { client, runsRoot } = await setup();
    const file = join(import.meta.dirname, '../../../templates/message-templates.csv');
    const planned = await planTemplateImport({ client, file, runsRoot, target: 'test' });
    expect(planned.file.plan.issues).toEqual([]);
    expect(planned.file.plan.entries).toEqual([]);
  });

  it('refuses a fourth button column for every row', async () => {
    const { s, client, dir, runsRoot } = await setup();
    const file = join(dir, 'templates.csv');
    const header = [...HEADER, 'button_4_text'];
    writeFileSync(file, csvText(header, [good]));
    const planned = await planTemplateImport({ client, file, runsRoot, target: 'test' });
    expect(planned.file.plan.issues.map((i) => [i.code, i.column])).toContainEqual(['too_many_buttons', 'M']);
    expect(planned.file.plan.counts.create).toBe(0);
    await expect(applyTemplateRun(planned.run, { client })).rejects.toMatchObject({ exitCode: 1 });
    expect(s.requestLog().filter((e) => e.method === 'POST')).toEqual([]);
  });

  it('creates the sample templates (PENDING) with deterministic keys, and a re-run creates nothing', async () => {
    const { s, client, dir, runsRoot } = await setup();
    const r = await cli(
      ['templates', 'create', SAMPLE_TEMPLATES, '--apply', '--yes', '--json', '--runs-dir', runsRoot],
      s,
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      runDir: string;
      created: number;
      templates: { name: string; status: string; outcome: string }[];
    };
    expect(doc.created).toBe(3);
    expect(doc.templates.map((t) => [t.name, t.outcome, t.status])).toEqual([
      ['order_shipped', 'created', 'PENDING'],
      ['new_arrivals', 'created', 'PENDING'],
      ['pickup_ready_ms', 'created', 'PENDING'],
    ]);
    const live = s.store.getTemplate('order_shipped');
    expect(live).toMatchObject({
      status: 'PENDING',
      category: 'UTILITY',
      parameters: ['name', 'order_number', 'courier', 'tracking_number'],
    });
    expect(s.store.getTemplate('new_arrivals')?.header_image_url).toBe(
      'https://kopikain.example.com/img/new-arrivals.jpg',
    );
    expect(s.store.getTemplate('pickup_ready_ms')?.language).toBe('ms');

    // Each POST carried idempotencyKey(run, entry, body).
    const plan = JSON.parse(readFileSync(join(doc.runDir, 'plan.json'), 'utf8')) as {
      plan: { entries: { key: string; body: unknown }[] };
    };
    const runId = doc.runDir.split(/[\\/]/).pop() as string;
    const keys = s
      .requestLog()
      .filter((e) => e.method === 'POST')
      .map((e) => e.idempotency_key);
    expect(keys.sort()).toEqual(plan.plan.entries.map((e) => idempotencyKey(runId, e.key, e.body)).sort());

    const results = Papa.parse<Record<string, string>>(
      readFileSync(join(doc.runDir, 'results.csv'), 'utf8').replace(/^\uFEFF/, ''),
      { header: true, skipEmptyLines: true },
    ).data;
    expect(results.map((x) => [x['row'], x['outcome'], x['template_status']])).toEqual([
      ['2', 'created', 'PENDING'],
      ['3', 'created', 'PENDING'],
      ['4', 'created', 'PENDING'],
    ]);
    expect(results[0]?.['entity_id']).toBe(live?.id);

    // The categories submitted are remembered per store.
    const submitted = readSubmittedTemplates(submittedTemplatesPath(join(dir, '.mbulk'), 'store_000001'));
    expect(submitted['new_arrivals']?.category).toBe('MARKETING');

    s.clearRequestLog();
    const again = await planTemplateImport({ client, file: SAMPLE_TEMPLATES, runsRoot, target: 'test' });
    expect(again.file.plan.counts).toMatchObject({ create: 0, unchanged: 3, invalid: 0 });
    await applyTemplateRun(again.run, { client });
    expect(s.requestLog().filter((e) => e.method === 'POST')).toEqual([]);
  });
});

describe('template creation through faults', () => {
  it('creates each template once when responses are lost (a keyed retry is replayed, not refused as a taken name)', async () => {
    const { s, client, runsRoot } = await setup({ dropRate: 0.5, failRate: 0.2, faultSeed: 3 });
    const planned = await planTemplateImport({ client, file: SAMPLE_TEMPLATES, runsRoot, target: 'test' });
    const applied = await applyTemplateRun(planned.run, { client });
    expect(applied).toMatchObject({ status: 'completed', created: 3, failed: 0 });
    const posts = s.requestLog().filter((e) => e.method === 'POST');
    // Three keys acted on (a replay's response can be dropped too, so count keys, not entries)...
    const acted = posts.filter((e) => e.outcome === 'applied' || e.outcome === 'dropped_after');
    expect(new Set(acted.map((e) => e.idempotency_key)).size).toBe(3);
    expect(posts.length).toBeGreaterThan(3);
    // ...and none was refused as a taken name.
    expect(posts.filter((e) => e.status === 400)).toEqual([]);
    for (const t of applied.templates) expect(s.store.getTemplate(t.name)?.id).toBe(t.id);
  });
});

describe('mbulk templates status', () => {
  it('shows review status, flags a re-categorised template and the rejected reason', async () => {
    const { s, client, dir, runsRoot } = await setup();
    const planned = await planTemplateImport({ client, file: SAMPLE_TEMPLATES, runsRoot, target: 'test' });
    await applyTemplateRun(planned.run, { client });
    const review = (name: string, body: unknown) =>
      fetch(`${s.url}/__sandbox/templates/${name}/review`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await review('order_shipped', { status: 'APPROVED', category: 'MARKETING' })).status).toBe(200);
    await review('new_arrivals', { status: 'REJECTED', rejected_reason: 'TAG_CONTENT_MISMATCH' });

    const { templates } = await readTemplateStatus({ client, stateDir: join(dir, '.mbulk') });
    const byName = new Map(templates.map((t) => [t.name, t]));
    expect(byName.get('order_shipped')).toMatchObject({
      status: 'APPROVED',
      category: 'MARKETING',
      submittedCategory: 'UTILITY',
      recategorised: true,
    });
    expect(byName.get('new_arrivals')).toMatchObject({
      status: 'REJECTED',
      recategorised: false,
      rejectedReason: 'TAG_CONTENT_MISMATCH',
    });
    // A template not submitted from here is never flagged.
    expect(byName.get('order_update')).toMatchObject({ recategorised: false });
    expect(byName.get('order_update')?.submittedCategory).toBeUndefined();

    const r = await cli(['templates', 'status'], s, dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /order_shipped\s+APPROVED\s+MARKETING\s+re-categorised \(submitted as UTILITY\)/,
    );
    expect(r.stdout).toContain('rejected: TAG_CONTENT_MISMATCH');
    const j = await cli(['templates', 'status', '--json', '--name', 'order_'], s, dir);
    const doc = JSON.parse(j.stdout) as { templates: { name: string; recategorised: boolean }[] };
    expect(doc.templates.map((t) => t.name).sort()).toEqual(['order_shipped', 'order_update']);
  });

  it('--watch polls until no template is PENDING, and stops on the signal', async () => {
    const { s, client, dir, runsRoot } = await setup();
    const planned = await planTemplateImport({ client, file: SAMPLE_TEMPLATES, runsRoot, target: 'test' });
    await applyTemplateRun(planned.run, { client });
    const pending = ['weekend_promo', 'order_shipped', 'new_arrivals', 'pickup_ready_ms'];
    const watched = await watchTemplateStatus({
      client,
      stateDir: join(dir, '.mbulk'),
      intervalMs: 20,
      onPoll: (_t, poll) => {
        // The reviewer answers one template per poll.
        const name = pending[poll - 1];
        if (name) s.store.reviewTemplate(name, { status: 'APPROVED' });
      },
    });
    expect(watched).toMatchObject({ interrupted: false, polls: 5 });
    expect(watched.templates.filter((t) => t.status === 'PENDING')).toEqual([]);

    s.store.reviewTemplate('order_shipped', { status: 'PENDING' });
    const abort = new AbortController();
    const stopped = await watchTemplateStatus({
      client,
      stateDir: join(dir, '.mbulk'),
      intervalMs: 60_000,
      signal: abort.signal,
      onPoll: () => setTimeout(() => abort.abort(), 10),
    });
    expect(stopped).toMatchObject({ interrupted: true, polls: 1 });

    // The command: nothing pending → one poll, exit 0.
    s.store.reviewTemplate('order_shipped', { status: 'APPROVED' });
    const r = await cli(['templates', 'status', '--watch', '--interval', '0.05', '--json'], s, dir);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { interrupted: boolean; templates: { status: string }[] };
    expect(doc.interrupted).toBe(false);
    expect(doc.templates.some((t) => t.status === 'PENDING')).toBe(false);
  });
});
