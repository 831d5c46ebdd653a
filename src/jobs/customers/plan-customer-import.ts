import type { RunDirectory } from '../../apply/run-directory.js';
import { handOverListing, type FirstListing } from '../../apply/write-check.js';
import { isShopifyCustomerExport } from '../../formats/detect-format.js';
import {
  ShopifyCustomerConverter,
  type PhoneSource,
} from '../../formats/shopify/shopify-customer-converter.js';
import { FORMAT_LABELS } from '../../formats/source-format.js';
import {
  mapCustomerRow,
  resolveCustomerColumns,
  type CustomerColumns,
  type DesiredCustomer,
} from '../../mapping/customer-sheet.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import { TrimmedCells } from '../../mapping/trimmed-cells.js';
import { appendAll } from '../../plan/append-all.js';
import {
  DEFAULT_CUSTOMER_MATCH,
  LiveCustomerIndex,
  planCustomers,
  type CustomerMatchKey,
} from '../../plan/customer-plan.js';
import type { Store } from '../../schema/index.js';
import type { SheetRow } from '../../sheets/sheet-row.js';
import { UsageError } from '../../errors/usage-error.js';
import { planFromSheet, readInputSheet, type PlanFromSheetOptions } from '../runner/plan-from-sheet.js';
import type { BlankMode, CustomerPlanFile } from './customer-plan-file.js';
import { customerCounts, writeCustomerReport } from './customer-report.js';
import { CUSTOMERS } from './customer-write-check.js';
import { errorRowNumbers } from '../sheet-run-report.js';

export interface PlanCustomersOptions extends PlanFromSheetOptions {
  /** 'keep' (default): a blank email leaves the live one; 'clear': it erases it. */
  blank?: BlankMode;
  /** `--from shopify`: read a Shopify customer export (default: recognised from the header). */
  from?: 'shopify' | 'mbulk' | undefined;
  /** The keys rows are matched on, in order (default id, phone, email). */
  match?: readonly CustomerMatchKey[];
  /**
   * A Shopify export's customer without their own phone: `own` (default) leaves them without one
   * (refused: the API needs a phone), `address` takes their default address's (`--phone-from`).
   */
  phoneFrom?: PhoneSource | undefined;
}

/** How rows are read: the columns, through a converter for another platform's export. */
interface CustomerSheetColumns {
  map: CustomerColumns;
  shopify?: ShopifyCustomerConverter | undefined;
}

export interface PlannedCustomerRun {
  run: RunDirectory;
  file: CustomerPlanFile;
  store: Store;
}

/**
 * Reads a customer sheet and the live customers, and plans (dry run): match by id, else phone
 * (normalised with the store's country for national numbers), else email; create / update
 * (field-level) / unchanged.
 */
export async function planCustomerImport(options: PlanCustomersOptions): Promise<PlannedCustomerRun> {
  const { client } = options;
  const blank: BlankMode = options.blank ?? 'keep';
  if (blank !== 'keep' && blank !== 'clear') {
    throw new UsageError(`--blank must be keep or clear, not "${String(blank)}"`, 'blank');
  }
  const match = [...(options.match ?? DEFAULT_CUSTOMER_MATCH)];
  // The plan's live read: the write-time check's first listing when this process applies the run.
  let read: FirstListing | undefined;
  const planned = await planFromSheet(options, {
    kind: 'customers',
    read: (store) =>
      readInputSheet(options, {
        // A Shopify customer export is read through its converter (issue 13); other sheets as they are.
        header: (info): { columns: CustomerSheetColumns; issues: RowIssue[] } => {
          const shopify =
            options.from === 'shopify' ||
            (options.from === undefined && isShopifyCustomerExport(info.columns))
              ? new ShopifyCustomerConverter(info.columns, options.phoneFrom ?? 'own')
              : undefined;
          if (shopify) return { columns: { map: shopify.columns, shopify }, issues: [] };
          const { columns, issues } = resolveCustomerColumns(info.sheet, info.columns);
          return { columns: { map: columns }, issues };
        },
        take: ({ map, shopify }) => {
          const desired: DesiredCustomer[] = [];
          const issues: RowIssue[] = [];
          const trimmed = new TrimmedCells();
          const add = (row: SheetRow) => {
            const mapped = mapCustomerRow(shopify ? shopify.row(row) : row, map, {
              country: store.country,
              blank,
              trimmed,
            });
            if (mapped.customer) desired.push(mapped.customer);
            appendAll(issues, mapped.issues);
          };
          return { add, desired, issues, trimmed };
        },
      }),
    plan: async ({ columns: { map, shopify }, headerIssues, taken, rows }, store) => {
      const live = new LiveCustomerIndex();
      const startedAt = Date.now();
      const started = performance.now();
      let fetched = 0;
      for await (const customer of client.customers.list(
        {},
        options.signal ? { signal: options.signal } : {},
      )) {
        live.add(customer);
        if (++fetched % 100 === 0) options.onProgress?.({ phase: 'fetch', done: fetched });
      }
      options.onProgress?.({ phase: 'fetch', done: fetched, message: `${fetched} customers` });
      read = { name: CUSTOMERS, startedAt, readMs: performance.now() - started, value: live };
      const plan = planCustomers(taken.desired, live, { columns: map, match });
      // A customer refused for want of a phone whose address has one: said why it is not taken.
      if (shopify)
        for (const i of plan.issues) {
          const hint = i.code === 'missing_required' ? shopify.addressPhoneHint(i.rowNumber) : undefined;
          if (hint !== undefined) i.message = `${i.message}; ${hint}`;
        }
      const phones = shopify?.phonesFromAddress();
      // Mapping and plan issues in row order (stable: a row's own issues keep their order).
      const all = [...taken.issues, ...plan.issues].sort((a, b) => a.rowNumber - b.rowNumber);
      plan.issues = [...headerIssues, ...taken.trimmed.warnings(), ...all];
      plan.counts.invalid = errorRowNumbers(plan.issues).size;
      return {
        options: {
          blank,
          country: store.country,
          match: match.join(','),
          ...(options.phoneFrom === 'address' ? { phoneFrom: 'address' } : {}),
        },
        file: (head) => ({
          ...head,
          store: { id: store.id, name: store.name, country: store.country },
          blank,
          match,
          rows,
          liveCustomers: live.size,
          plan,
          ...(shopify
            ? {
                source: {
                  label: FORMAT_LABELS['shopify-customers'],
                  columns: shopify.uses(),
                  ...(phones !== undefined ? { phones: [phones] } : {}),
                },
              }
            : {}),
        }),
      };
    },
    counts: (file) => customerCounts(file),
    report: writeCustomerReport,
  });
  if (read !== undefined) handOverListing(planned.run, read);
  return planned;
}
