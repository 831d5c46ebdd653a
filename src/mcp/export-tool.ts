import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpServerDeps } from './mcp-deps.js';
import { guarded, toolResult } from './tool-result.js';

const Day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .optional();

/** The summary and files of an export, as `export` returns them. */
const ExportOutput = {
  kind: z.string(),
  format: z.string(),
  files: z.array(z.string()),
  figures: z.record(z.string(), z.number()),
  summary: z.array(z.record(z.string(), z.unknown())).nullable(),
};

/**
 * `export`: orders (with the accounting options), products, stock or customers to a file in the
 * server's exports directory, the same library calls as `mbulk export`; returns the files and the
 * figures that tie to them (rows, orders, lines, the orders summary).
 */
export function registerExportTool(server: McpServer, deps: McpServerDeps): void {
  server.registerTool(
    'export',
    {
      title: 'Export to a file',
      description:
        "Exports orders (optionally as a Xero or QuickBooks invoice import), products, stock or customers to a file in the server's exports directory; returns the files written and summary figures.",
      inputSchema: {
        kind: z.enum(['orders', 'products', 'stock', 'customers']),
        format: z.enum(['csv', 'xlsx', 'json']).optional().describe('Default xlsx (json: orders only)'),
        since: Day.describe('orders: created on or after this day (YYYY-MM-DD, store time zone)'),
        until: Day.describe('orders: created on or before this day (YYYY-MM-DD, store time zone)'),
        accounting: z
          .object({
            profile: z.enum(['xero', 'quickbooks']),
            account_code: z.string().optional(),
            tax_type: z.string().optional(),
            due_days: z.number().int().min(0).optional(),
            invoice_prefix: z.string().optional(),
            date_format: z.enum(['DD/MM/YYYY', 'MM/DD/YYYY', 'YYYY-MM-DD']).optional(),
          })
          .optional()
          .describe(
            'orders: write an invoice import file for Xero or QuickBooks, in CSV, instead of the sheets',
          ),
      },
      outputSchema: ExportOutput,
      annotations: { readOnlyHint: true },
    },
    (args, extra) =>
      guarded(async () => {
        const signal = AbortSignal.any([deps.signal, extra.signal]);
        const { client } = deps;
        const me = await client.me({ signal });
        const format = args.accounting !== undefined ? 'csv' : (args.format ?? 'xlsx');
        if (format === 'json' && args.kind !== 'orders') throw new Error('format json is for orders only');
        mkdirSync(deps.options.exportsDir, { recursive: true });
        const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
        const path = join(deps.options.exportsDir, `${args.kind}-${stamp}.${format}`);
        const sheet = format as 'csv' | 'xlsx';
        if (args.kind === 'orders') {
          const { exportOrders } = await import('../export/export-orders.js');
          const { dayBoundaryInZone } = await import('../export/day-boundary-in-zone.js');
          const a = args.accounting;
          const r = await exportOrders({
            orders: client.orders.list({}, { signal }),
            store: me,
            path,
            format: format as 'csv' | 'xlsx' | 'json',
            filter: {
              ...(args.since ? { since: dayBoundaryInZone(args.since, me.timezone, 0) } : {}),
              ...(args.until ? { until: dayBoundaryInZone(args.until, me.timezone, 1) } : {}),
            },
            ...(a === undefined
              ? {}
              : {
                  accounting: {
                    profile: a.profile,
                    ...(a.account_code !== undefined ? { accountCode: a.account_code } : {}),
                    ...(a.tax_type !== undefined ? { taxType: a.tax_type } : {}),
                    ...(a.due_days !== undefined ? { dueDays: a.due_days } : {}),
                    ...(a.invoice_prefix !== undefined ? { invoicePrefix: a.invoice_prefix } : {}),
                    ...(a.date_format !== undefined ? { dateFormat: a.date_format } : {}),
                  },
                }),
          });
          const figures: Record<string, number> = {
            orders: r.orders,
            lines: r.lines,
            checks: r.checks,
            ordersWithChecks: r.ordersWithChecks,
            ordersRead: r.ordersRead,
            duplicates: r.duplicates,
            skipped: r.skipped,
            ...(r.invoices ? { invoices: r.invoices.invoices, invoiceRows: r.invoices.rows } : {}),
          };
          const files = [
            r.paths.orders,
            r.paths.lines,
            r.paths.checks,
            r.paths.summary,
            ...(r.paths.parts ?? []),
          ];
          return toolResult({
            kind: 'orders',
            format,
            files: [...new Set(files.filter((f): f is string => f !== undefined))],
            figures,
            summary: r.summary.map((row) => ({ ...row })),
          });
        }
        if (args.kind === 'products') {
          const { exportProducts } = await import('../export/export-products.js');
          const r = await exportProducts({
            products: client.products.list({}, { signal }),
            store: me,
            path,
            format: sheet,
          });
          const files = [r.paths.products, r.paths.options].filter((f): f is string => f !== undefined);
          return toolResult({
            kind: 'products',
            format,
            files,
            figures: { products: r.products, variants: r.variants, rows: r.rows, optionRows: r.optionRows },
            summary: null,
          });
        }
        if (args.kind === 'stock') {
          const { exportStock } = await import('../export/export-stock.js');
          const r = await exportStock({
            products: client.products.list({}, { signal }),
            store: me,
            path,
            format: sheet,
          });
          return toolResult({
            kind: 'stock',
            format,
            files: [r.paths.stock],
            figures: { products: r.products, items: r.items, untracked: r.untracked },
            summary: null,
          });
        }
        const { exportCustomers } = await import('../export/export-customers.js');
        const r = await exportCustomers({
          customers: client.customers.list({}, { signal }),
          store: me,
          path,
          format: sheet,
        });
        return toolResult({
          kind: 'customers',
          format,
          files: [r.paths.customers],
          figures: { customers: r.customers },
          summary: null,
        });
      }),
  );
}
