import type { Customer } from '../schema/customer.js';
import type { Store } from '../schema/store.js';
import { createSheetWriter } from '../sheets/create-sheet-writer.js';
import { type ColumnSpec } from '../sheets/sheet-writer.js';
import { column, withWriter, writeRow } from './catalog-sheet.js';

export const CUSTOMERS_SHEET = 'customers';

/**
 * Columns of the customers export: the import's `id, name, phone, email` (phone as text: the API's
 * international digits, as in every export), then read-only columns the import skips without a
 * warning (address fields, timestamps).
 */
export const CUSTOMER_COLUMNS: readonly ColumnSpec[] = [
  column('id', 'text', 22),
  column('name', 'text', 26),
  column('phone', 'text', 16),
  column('email', 'text', 30),
  column('address1', 'text', 26),
  column('address2', 'text', 20),
  column('district', 'text', 16),
  column('city', 'text', 16),
  column('state', 'text', 16),
  column('zip', 'text', 8),
  column('country', 'text', 8),
  column('latitude', 'number'),
  column('longitude', 'number'),
  column('created_at', 'text', 26),
  column('updated_at', 'text', 26),
];

export interface ExportCustomersProgress {
  customersRead: number;
  phase: 'writing' | 'finishing' | 'done';
}

export interface ExportCustomersOptions {
  /** The customers, usually `client.customers.list()`. Read once. */
  customers: AsyncIterable<Customer>;
  store: Pick<Store, 'timezone'>;
  path: string;
  format: 'csv' | 'xlsx';
  /** Progress every 500 customers and at the end. */
  onProgress?: (progress: ExportCustomersProgress) => void;
}

export interface ExportCustomersResult {
  customers: number;
  paths: { customers: string };
}

/** One customer's row (timestamps as the API's ISO strings). */
export function customerCells(c: Customer): Record<string, unknown> {
  const a = c.address;
  return {
    id: c.id,
    name: c.name,
    // The API's own digits (country code, no `+`), as every export writes phones: nothing for a
    // spreadsheet to neutralise, and the importer reads digits that carry a country code back as such.
    phone: c.phone === '' ? null : c.phone,
    email: c.email,
    address1: a?.address1,
    address2: a?.address2,
    district: a?.district,
    city: a?.city,
    state: a?.state,
    zip: a?.zip,
    country: a?.country,
    latitude: a?.latitude,
    longitude: a?.longitude,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

/**
 * `mbulk export customers`: one row per customer in the customer import's format, so that
 * importing an unmodified export plans no change. Streams.
 */
export async function exportCustomers(options: ExportCustomersOptions): Promise<ExportCustomersResult> {
  let count = 0;
  const report = (phase: ExportCustomersProgress['phase']): void =>
    options.onProgress?.({ customersRead: count, phase });
  const writer = createSheetWriter(options.path, {
    format: options.format,
    currencyDecimals: 0,
    timezone: options.store.timezone,
  });
  await withWriter(writer, async () => {
    const sheet = await writer.addSheet(
      { name: CUSTOMERS_SHEET, columns: [...CUSTOMER_COLUMNS] },
      options.path,
    );
    for await (const c of options.customers) {
      await writeRow(sheet, customerCells(c));
      if (++count % 500 === 0) report('writing');
    }
    report('finishing');
    await sheet.end();
  });
  report('done');
  return { customers: count, paths: { customers: options.path } };
}
