import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The layer rules of eslint.config.js, checked on imports each layer must refuse.
const root = resolve(import.meta.dirname, '..', '..');
const eslint = new ESLint({ cwd: root });

async function restrictedImports(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: resolve(root, filePath) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer rules', () => {
  it('plan/ imports no I/O, client, executor or sheet reader', async () => {
    for (const spec of [
      'node:fs',
      'undici',
      '../api/merchant-client.js',
      '../apply/journal.js',
      '../sheets/csv-reader.js',
    ]) {
      const messages = await restrictedImports('src/plan/example.ts', `import '${spec}';\n`);
      expect(messages, spec).toEqual([expect.stringContaining('plan/ is pure')]);
    }
    expect(await restrictedImports('src/plan/example.ts', "import '../sheets/money.js';\n")).toEqual([]);
  });

  // The foundations: each layer refuses the layers above it and accepts the ones it builds on.
  const foundations: [string, string, string[], string[]][] = [
    [
      'src/errors/example.ts',
      'errors/ is the root',
      [
        '../schema/common.js',
        '../files/atomic-file.js',
        '../api/errors.js',
        '../cli/cli-error.js',
        'node:fs',
      ],
      ['./mbulk-error.js'],
    ],
    [
      'src/files/example.ts',
      'files/ holds the file primitives',
      ['../sheets/sheet-row.js', '../apply/journal.js', '../schema/product.js'],
      ['../errors/mbulk-error.js', './atomic-file.js', 'node:fs'],
    ],
    [
      'src/schema/example.ts',
      'schema/ is the data model',
      ['../api/errors.js', '../sheets/money.js', '../mapping/row-issue.js', 'node:fs/promises'],
      ['../errors/mbulk-error.js', './common.js', 'zod'],
    ],
    [
      'src/sheets/example.ts',
      'sheets/ reads and writes any sheet',
      ['../schema/product.js', '../mapping/row-issue.js', '../api/errors.js', '../export/export-orders.js'],
      ['../errors/mbulk-error.js', '../files/atomic-file.js', './money.js', 'node:fs', 'exceljs'],
    ],
    [
      'src/api/resources/example.ts',
      'api/ is the client',
      [
        '../../sheets/money.js',
        '../../apply/journal.js',
        '../../mapping/row-issue.js',
        '../../sandbox/store.js',
      ],
      ['../../schema/product.js', '../../errors/mbulk-error.js', '../paginate.js', 'undici'],
    ],
    [
      'src/feeds/example.ts',
      'feeds/ downloads feeds',
      ['../cli/cli-error.js', '../jobs/input-runs.js', '../apply/journal.js', '../mcp/plan-source.js'],
      ['../api/refuse-plain-http.js', '../errors/usage-error.js', '../files/atomic-file.js', 'undici'],
    ],
    [
      'src/mapping/example.ts',
      'mapping/ turns rows into entities',
      [
        '../sheets/read-sheet.js',
        '../sheets/csv-reader.js',
        '../sheets/csv-file-writer.js',
        '../api/merchant-client.js',
        '../plan/live-catalog.js',
        '../formats/column-map.js',
        'node:fs',
        'papaparse',
      ],
      ['../sheets/money.js', '../sheets/sheet-row.js', '../schema/product.js', '../errors/usage-error.js'],
    ],
    [
      'src/results/example.ts',
      'results/ writes what became of each row',
      [
        '../jobs/runner/job-definition.js',
        '../jobs/run-kind.js',
        '../cli/output.js',
        '../report/review-page.js',
      ],
      ['../apply/run-input.js', '../sheets/csv-file-writer.js', '../mapping/row-issue.js', './row-result.js'],
    ],
  ];
  for (const [file, message, refused, accepted] of foundations) {
    it(`${file.split('/')[1]}/ imports only what it builds on`, async () => {
      for (const spec of refused) {
        const messages = await restrictedImports(file, `import '${spec}';\n`);
        expect(messages, spec).toEqual([expect.stringContaining(message)]);
      }
      for (const spec of accepted)
        expect(await restrictedImports(file, `import '${spec}';\n`), spec).toEqual([]);
    });
  }

  it("src/cli writes only through applySavedRun: no kind's apply*Run, imported or called", async () => {
    const refused = async (source: string): Promise<string[]> => {
      const [result] = await eslint.lintText(source, { filePath: resolve(root, 'src/cli/example.ts') });
      return (result?.messages ?? [])
        .filter((m) => m.ruleId === 'no-restricted-syntax')
        .map((m) => m.message);
    };
    for (const source of [
      "import { applyStockRun } from '../jobs/stock/stock-import.js';\nexport const f = applyStockRun;\n",
      "export async function f() {\n  const { applyProductRun } = await import('../jobs/products/product-import.js');\n  return applyProductRun;\n}\n",
      "export async function f() {\n  const rollback = await import('../jobs/rollback/rollback-run.js');\n  return rollback.applyRollbackRun;\n}\n",
      "import { applyRun } from '../apply/apply-run.js';\nexport const f = applyRun;\n",
    ]) {
      const messages = await refused(source);
      expect(messages.length, source).toBeGreaterThan(0);
      for (const m of messages) expect(m, source).toContain('only through applySavedRun');
    }
    expect(
      await refused(
        "export async function f() {\n  const { applySavedRun } = await import('../jobs/apply-saved-run.js');\n  return applySavedRun;\n}\n",
      ),
    ).toEqual([]);
    // Other names that end in Run are not a kind's apply.
    expect(
      await refused(
        "import { applyOrDryRun } from './dry-run-option.js';\nexport const f = applyOrDryRun;\n",
      ),
    ).toEqual([]);
    // The library may: a kind's own module defines and calls its apply*Run.
    const [jobs] = await eslint.lintText(
      "import { applyStockRun } from './stock/stock-import.js';\nexport const f = applyStockRun;\n",
      { filePath: resolve(root, 'src/jobs/example.ts') },
    );
    expect((jobs?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax')).toEqual([]);
  });

  it('src/cli and src/mcp export only through exportFromStore: no order reads wired there', async () => {
    const refused = async (filePath: string, source: string): Promise<string[]> => {
      const [result] = await eslint.lintText(source, { filePath: resolve(root, filePath) });
      return (result?.messages ?? [])
        .filter((m) => m.ruleId === 'no-restricted-syntax')
        .map((m) => m.message);
    };
    const wiring: [string, string][] = [
      [
        'src/cli/commands/example.ts',
        "import { exportOrders } from '../../export/export-orders.js';\nexport const f = exportOrders;\n",
      ],
      [
        'src/cli/example.ts',
        "export async function f() {\n  const { exportOrdersIncremental } = await import('../export/export-orders-incremental.js');\n  return exportOrdersIncremental;\n}\n",
      ],
      [
        'src/mcp/example.ts',
        "import { orderExportReads, selectionReads } from '../export/order-selection.js';\nexport const f = [orderExportReads, selectionReads];\n",
      ],
      [
        'src/mcp/example.ts',
        "import * as feed from '../export/feed-publish.js';\nexport const f = feed.finishPendingPublish;\n",
      ],
      ['src/mcp/example.ts', "import '../export/order-checks.js';\n"],
      ['src/cli/example.ts', "export { AccountingExport } from '../export/accounting-export.js';\n"],
      [
        'src/mcp/example.ts',
        "import { readAhead } from '../api/read-ahead.js';\nexport const f = readAhead;\n",
      ],
      [
        'src/cli/example.ts',
        "import type { MerchantClient } from '../api/merchant-client.js';\nexport async function f(client: MerchantClient) {\n  for await (const o of client.orders.list({})) void o;\n}\n",
      ],
      [
        'src/mcp/example.ts',
        "import type { MerchantClient } from '../api/merchant-client.js';\nexport function f({ orders }: MerchantClient) {\n  return orders.listPartitioned();\n}\n",
      ],
      [
        'src/cli/example.ts',
        "import { Orders } from '../api/resources/orders.js';\nimport type { MerchantClient } from '../api/merchant-client.js';\nexport const f = (c: MerchantClient) => new Orders(c);\n",
      ],
    ];
    for (const [file, source] of wiring) {
      const messages = await refused(file, source);
      expect(messages.length, source).toBeGreaterThan(0);
      for (const m of messages) expect(m, source).toContain('exports only through exportFromStore');
    }
    // The entry itself, the profiles' limits and types are fine, in both folders.
    for (const file of ['src/cli/example.ts', 'src/mcp/example.ts']) {
      for (const source of [
        "export async function f() {\n  const { exportFromStore } = await import('../export/export-from-store.js');\n  return exportFromStore;\n}\n",
        "import { PROFILE_INVOICES_PER_FILE } from '../export/accounting-profile.js';\nexport const f = PROFILE_INVOICES_PER_FILE;\n",
        "import type { FeedStep } from '../export/feed-publish.js';\nimport { type OrderExportRequest } from '../export/order-export-request.js';\nexport type F = [FeedStep, OrderExportRequest];\n",
        "import type { MerchantClient } from '../api/merchant-client.js';\nexport const f = (c: MerchantClient) => c.products.list();\n",
      ])
        expect(await refused(file, source), `${file}: ${source}`).toEqual([]);
    }
    // The library wires its own reads.
    expect(
      await refused(
        'src/export/example.ts',
        "import { exportOrders } from './export-orders.js';\nimport { readAhead } from '../api/read-ahead.js';\nexport const f = [exportOrders, readAhead];\n",
      ),
    ).toEqual([]);
  });

  it('the sandbox never imports the client; nothing outside cli imports cli', async () => {
    expect(
      await restrictedImports('src/sandbox/example.ts', "import '../api/merchant-client.js';\n"),
    ).toHaveLength(1);
    expect(await restrictedImports('src/jobs/example.ts', "import '../cli/output.js';\n")).toEqual([
      expect.stringContaining('Only src/cli'),
    ]);
    expect(await restrictedImports('src/cli/example.ts', "import './output.js';\n")).toEqual([]);
  });
});
