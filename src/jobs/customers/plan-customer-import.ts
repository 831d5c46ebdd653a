import type { MerchantClient } from '../../api/merchant-client.js';
import { RunDirectory } from '../../apply/run-directory.js';
import { clientStore, PLANNER_STORE_MAX_AGE_MS } from '../../apply/run-store.js';
import { isShopifyCustomerExport } from '../../formats/detect-format.js';
import { ShopifyCustomerConverter } from '../../formats/shopify/shopify-customer-converter.js';
import { FORMAT_LABELS } from '../../formats/source-format.js';
import {
  mapCustomerRow,
  resolveCustomerColumns,
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
import type { ReadSheetOptions } from '../../sheets/read-sheet.js';
import { refuseEmptySheet } from '../empty-sheet.js';
import type { JobCallbacks } from '../job-events.js';
import { keepRunInput } from '../run-input.js';
import { openSheet, readRowsInBatches, refuseFatalHeader } from '../runner/read-input.js';
import { UsageError } from '../../errors/usage-error.js';
import type { BlankMode, CustomerPlanFile } from './customer-plan-file.js';
import { customerCounts, invalidRowNumbers, writeCustomerReport } from './customer-report.js';

export interface PlanCustomersOptions extends JobCallbacks {
  client: MerchantClient;
  file: string;
  runsRoot: string;
  /** Where the run writes, for people (never the token). */
  target: string;
  read?: ReadSheetOptions;
  /** 'keep' (default): a blank email leaves the live one; 'clear': it erases it. */
  blank?: BlankMode;
  /** `--from shopify`: read a Shopify customer export (default: recognised from the header). */
  from?: 'shopify' | 'mbulk' | undefined;
  /** Plan a sheet with a header and no data rows (default false: EmptySheetError, exit 3). */
  allowEmpty?: boolean | undefined;
  /** The keys rows are matched on, in order (default id, phone, email). */
  match?: readonly CustomerMatchKey[];
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
  const signal = options.signal ? { signal: options.signal } : {};
  const store = await clientStore(client, options.signal, PLANNER_STORE_MAX_AGE_MS);
  const { reader, info } = await openSheet(options.file, options.read);
  // A Shopify customer export is read through its converter (issue 13); other sheets as they are.
  const shopify =
    options.from === 'shopify' || (options.from === undefined && isShopifyCustomerExport(info.columns))
      ? new ShopifyCustomerConverter(info.columns)
      : undefined;
  const { columns, issues: headerIssues } = shopify
    ? { columns: shopify.columns, issues: [] }
    : resolveCustomerColumns(info.sheet, info.columns);
  await refuseFatalHeader(reader, options.file, headerIssues);
  const desired: DesiredCustomer[] = [];
  const rowIssues: RowIssue[] = [];
  const trimmed = new TrimmedCells();
  const rows = await readRowsInBatches(reader, options.file, options, (row) => {
    const mapped = mapCustomerRow(shopify ? shopify.row(row) : row, columns, {
      country: store.country,
      blank,
      trimmed,
    });
    if (mapped.customer) desired.push(mapped.customer);
    appendAll(rowIssues, mapped.issues);
  });
  refuseEmptySheet(options.file, rows, options.allowEmpty);

  const live = new LiveCustomerIndex();
  let fetched = 0;
  for await (const customer of client.customers.list({}, signal)) {
    live.add(customer);
    if (++fetched % 100 === 0) options.onProgress?.({ phase: 'fetch', done: fetched });
  }
  options.onProgress?.({ phase: 'fetch', done: fetched, message: `${fetched} customers` });

  const match = [...(options.match ?? DEFAULT_CUSTOMER_MATCH)];
  const plan = planCustomers(desired, live, { columns, match });
  // Mapping and plan issues in row order (stable: a row's own issues keep their order).
  const all = [...rowIssues, ...plan.issues].sort((a, b) => a.rowNumber - b.rowNumber);
  plan.issues = [...headerIssues, ...trimmed.warnings(), ...all];
  plan.counts.invalid = invalidRowNumbers(plan).size;

  const run = RunDirectory.create(options.runsRoot, {
    kind: 'customers',
    input: options.file,
    target: options.target,
    storeId: store.id,
    options: { blank, country: store.country, match: match.join(',') },
    counts: customerCounts({ plan, rows }),
  });
  const file: CustomerPlanFile = {
    kind: 'customers',
    version: 1,
    store: { id: store.id, name: store.name, country: store.country },
    input: keepRunInput(run, options.file, 'customers', info.format === 'xlsx' ? info.sheet : undefined),
    blank,
    match,
    rows,
    liveCustomers: live.size,
    plan,
  };
  if (shopify) file.source = { label: FORMAT_LABELS['shopify-customers'], columns: shopify.uses() };
  run.writePlan(file);
  writeCustomerReport(run, file);
  return { run, file, store };
}
