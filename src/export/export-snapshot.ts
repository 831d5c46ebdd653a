import { AtomicFile, writeThenCommit } from '../files/atomic-file.js';
import type { Customer } from '../schema/customer.js';
import type { Order } from '../schema/order.js';
import type { Product } from '../schema/product.js';
import type { Store } from '../schema/store.js';
import type { MessageTemplate } from '../schema/template.js';
import { writeJsonArray } from './json-array-file.js';

export type SnapshotSection = 'products' | 'customers' | 'orders' | 'templates';

export interface ExportSnapshotProgress {
  section: SnapshotSection;
  /** Items written in this section so far. */
  items: number;
  counts: Record<SnapshotSection, number>;
  phase: 'writing' | 'done';
}

export interface ExportSnapshotOptions {
  me: Store;
  /** Each list is read once, in this order: products, customers, orders, templates. */
  products: AsyncIterable<Product>;
  customers: AsyncIterable<Customer>;
  orders: AsyncIterable<Order>;
  templates: AsyncIterable<MessageTemplate>;
  /** The `.json` file. Written to a temporary file beside it and renamed when complete. */
  path: string;
  /** `exported_at`. Default: now. */
  exportedAt?: Date;
  /** Progress every 500 items of a section and at the end of each. */
  onProgress?: (progress: ExportSnapshotProgress) => void;
}

export interface ExportSnapshotResult {
  counts: Record<SnapshotSection, number>;
  path: string;
}

/**
 * `mbulk export snapshot FILE.json`: the whole store as a StoreSnapshot (src/schema/snapshot.ts),
 * the format `mbulk sandbox --seed FILE` loads. Streamed item by item (memory does not grow with
 * the store); the file appears under its name only once complete.
 */
export async function exportSnapshot(options: ExportSnapshotOptions): Promise<ExportSnapshotResult> {
  const counts: Record<SnapshotSection, number> = { products: 0, customers: 0, orders: 0, templates: 0 };
  const file = new AtomicFile(options.path);
  const head = {
    format: 'merchant-bulk/snapshot',
    version: 1,
    exported_at: (options.exportedAt ?? new Date()).toISOString(),
    me: options.me,
  };
  await writeThenCommit(file, async () => {
    // The header object without its closing brace, then one array per section.
    await file.write(JSON.stringify(head).slice(0, -1));
    const sections: [SnapshotSection, AsyncIterable<unknown>][] = [
      ['products', options.products],
      ['customers', options.customers],
      ['orders', options.orders],
      ['templates', options.templates],
    ];
    for (const [section, items] of sections) {
      await file.write(`,\n${JSON.stringify(section)}:`);
      counts[section] = await writeJsonArray(file, items, () => {
        counts[section]++;
        if (counts[section] % 500 === 0)
          options.onProgress?.({ section, items: counts[section], counts, phase: 'writing' });
      });
      options.onProgress?.({ section, items: counts[section], counts, phase: 'done' });
    }
    await file.write('\n}\n');
  });
  return { counts: { ...counts }, path: options.path };
}
