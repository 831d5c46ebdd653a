import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { runPlanFlags } from '../../../src/jobs/runner/run-plan-flags.js';
import { cliSandbox } from '../../helpers/cli-sandbox.js';
import { runCli } from '../../helpers/run-cli.js';

// The options a run planned through the library or the MCP server records in the CLI's words
// (run.json's plan_flags, worked out from its options) must be what the CLI records for the same
// choice: else the CLI would refuse to continue a run it was given the same options for. Each kind
// is planned by the CLI, with its defaults and with other values, and the two records compared.
const t = cliSandbox('mbulk-plan-flags-');

const SAMPLES = resolve('samples');

const CASES: [string, string[]][] = [
  ['stock', ['import', 'stock', join(SAMPLES, 'stock.csv')]],
  ['stock', ['import', 'stock', join(SAMPLES, 'stock.csv'), '--preserve-sales']],
  ['products', ['import', 'products', join(SAMPLES, 'catalog.csv')]],
  [
    'products',
    [
      'import',
      'products',
      join(SAMPLES, 'catalog.csv'),
      '--missing',
      'hide',
      '--stock',
      'overwrite',
      '--blank',
      'clear',
      '--images',
      'first-10',
      '--no-category',
      '--duplicate-sku',
      'first',
    ],
  ],
  ['customers', ['import', 'customers', join(SAMPLES, 'customers.csv')]],
  [
    'customers',
    ['import', 'customers', join(SAMPLES, 'customers.csv'), '--blank', 'clear', '--phone-from', 'address'],
  ],
  ['templates', ['templates', 'create', join(SAMPLES, 'message-templates.csv')]],
  ['templates', ['templates', 'create', join(SAMPLES, 'message-templates.csv'), '--skip-invalid']],
  ['messages', ['messages', 'send', join(SAMPLES, 'recipients.csv'), '--template', 'order_update']],
  [
    'messages',
    [
      'messages',
      'send',
      join(SAMPLES, 'recipients.csv'),
      '--template',
      'order_update',
      '--allow-duplicates',
      '--skip-invalid',
      '--max',
      '40',
    ],
  ],
];

it("every kind: the plan_flags worked out from a run's options are the CLI's own for the same choice", async () => {
  const runsRoot = join(t.dir, '.mbulk', 'runs');
  const seen = new Set<string>();
  for (const [kind, args] of CASES) {
    const r = await runCli([...args, '--json'], t.env, t.dir);
    expect([0, 1, 3], `${args.join(' ')}: ${r.stderr}`).toContain(r.code);
    const id = readdirSync(runsRoot).find((d) => !seen.has(d) && !d.includes('.'));
    expect(id, args.join(' ')).toBeDefined();
    seen.add(id as string);
    const meta = JSON.parse(readFileSync(join(runsRoot, id as string, 'run.json'), 'utf8')) as {
      kind: string;
      options: Record<string, unknown>;
      plan_flags: Record<string, unknown>;
    };
    expect(meta.kind).toBe(kind);
    const library = runPlanFlags(kind, meta.options) ?? {};
    expect(Object.keys(library).length, kind).toBeGreaterThan(0);
    // Every option the library records, with the value the CLI recorded for it.
    const cli = Object.fromEntries(Object.keys(library).map((name) => [name, meta.plan_flags[name] ?? null]));
    expect(library, args.join(' ')).toEqual(cli);
  }
});
