/**
 * Generates the product templates and the sample workbook:
 *
 *   templates/products.csv, templates/options.csv  (headers only, canonical columns)
 *   templates/catalog.xlsx   (products + options sheets: a note per header cell, dropdowns for enum
 *                             columns, frozen header, text format for ids and SKUs)
 *   samples/catalog.xlsx     (samples/catalog.csv + samples/options.csv as one workbook)
 *   templates/stock-and-customers.xlsx  (`stock` and `customers` sheets, for `--sheet stock` /
 *                             `--sheet customers`)
 *
 * Run: npx tsx scripts/make-templates.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { OPTION_SHEET_COLUMNS, PRODUCT_SHEET_COLUMNS } from '../src/mapping/column-aliases.js';
import { PRODUCT_COMMANDS } from '../src/mapping/product-desired.js';
import { OPTION_TYPES, PRODUCT_STATUSES, PRODUCT_TYPES, PRODUCT_UNITS } from '../src/schema/product.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const BOOL = ['true', 'false'];

/** What each column means, shown as the header cell's note. */
const PRODUCT_NOTES: Record<string, string> = {
  command:
    'Optional. upsert (default: create or update), create, update, hide, delete or skip. One per product.',
  id: 'Live product id (prod_…). Leave blank for new products. Rows with the same id are one product.',
  reference_id:
    'Your own product key (e.g. the ERP code). Rows with the same reference_id are one product (when id is blank).',
  name: 'Product name. Required for a new product. Product columns may be left blank on the later rows of a product.',
  description:
    'Product description (Markdown allowed). A blank cell keeps the live value (unless --blank clear).',
  sku: 'Product SKU. Identifies the product when id and reference_id are blank.',
  status: 'VISIBLE or HIDDEN.',
  type: `One of ${PRODUCT_TYPES.join(', ')}.`,
  price: 'Price in currency units (12.90), or minor units with --money minor. Required for a new product.',
  original_price: 'Struck-through price in currency units; 0 clears it.',
  cost_enabled: 'true/false: track cost.',
  cost: 'Cost price in currency units.',
  unit_enabled: 'true/false: sell by unit.',
  unit: `One of ${PRODUCT_UNITS.join(', ')}.`,
  unit_value: 'How many units one item holds (whole number).',
  weight: 'Weight in grams (whole number).',
  tax_override: 'true/false: use tax_rate instead of the store tax.',
  tax_rate: 'Tax rate in percent when tax_override is true.',
  tags: 'Tags separated by | (coffee|drinks).',
  links: 'Links separated by |.',
  category_ids: 'Category ids separated by | (cat_drinks|cat_sale).',
  daily_limit: 'Maximum sold per day (0: no limit).',
  cart_limit: 'Maximum per cart (0: no limit).',
  cart_minimum: 'Minimum per cart (0: none).',
  inventory_enabled: 'true/false: track stock.',
  inventory_quantity: 'Stock of a product without variants (absolute quantity).',
  images:
    'Image URLs separated by | (at most 10), in storefront order. Images already uploaded are not uploaded again.',
  variant_id: 'Live variant id (var_…) to update a variant; blank for a new variant.',
  variant_name: 'Variant name (Red / Large). One row per variant.',
  variant_sku:
    'Variant SKU: matches the live variant. Variants not listed on the sheet are kept (unless --replace variants).',
  variant_description: 'Variant description.',
  variant_price: 'Variant price in currency units.',
  variant_original_price: 'Variant struck-through price in currency units.',
  variant_cost: 'Variant cost in currency units.',
  variant_weight: 'Variant weight in grams.',
  variant_inventory_quantity: 'Variant stock (absolute quantity).',
};

const OPTION_NOTES: Record<string, string> = {
  id: 'The product id this option belongs to (or use reference_id / sku, as on the products sheet).',
  reference_id: 'The reference_id of the product this option belongs to.',
  sku: 'The SKU of the product this option belongs to.',
  option_id: 'Live option id (opt_…) to update an option; blank for a new one.',
  option_type: `One of ${OPTION_TYPES.join(', ')}. Cannot change after creation (only with --replace options).`,
  option_text: 'The option label shown to buyers (Milk, Gift wrap). One row per option.',
  option_required: 'true/false: the buyer must fill it.',
  option_choices:
    'Selection choices separated by |, each text, text:price or text:price:quantity (Small|Large:3.00). Escape | : \\ with \\.',
  option_min: 'Selection: fewest choices a buyer picks.',
  option_max: 'Selection: most choices a buyer picks.',
  option_enable_quantity: 'Selection: true/false, buyers pick a quantity per choice.',
};

const STOCK_NOTES: Record<string, string> = {
  sku: 'SKU of the product (without variants) or variant. Or use an item_id column instead.',
  quantity:
    'New stock count (a whole number >= 0). Only items whose quantity changes are written. Or use a delta_quantity column: an adjustment such as 5 or -3, applied at most once.',
};
const CUSTOMER_NOTES: Record<string, string> = {
  id: 'Live customer id (cus_…) to update; blank to match by phone, then email, or to create.',
  name: 'Customer name. Required for a new customer.',
  phone:
    "Phone in any format (012-345 6789, +44 20 7946 0958). National numbers are read in the store's country.",
  email: 'Email. A blank cell keeps the live email (unless --blank clear).',
  command: 'Optional. upsert (default), create, update or skip.',
};

const PRODUCT_LISTS: Record<string, readonly string[]> = {
  command: PRODUCT_COMMANDS,
  status: PRODUCT_STATUSES,
  type: PRODUCT_TYPES,
  unit: PRODUCT_UNITS,
  cost_enabled: BOOL,
  unit_enabled: BOOL,
  tax_override: BOOL,
  inventory_enabled: BOOL,
};
const OPTION_LISTS: Record<string, readonly string[]> = {
  option_type: OPTION_TYPES,
  option_required: BOOL,
  option_enable_quantity: BOOL,
};
const TEXT_COLUMNS = new Set([
  'id',
  'reference_id',
  'sku',
  'variant_id',
  'variant_sku',
  'option_id',
  'phone',
]);
const MONEY_COLUMNS = new Set([
  'price',
  'original_price',
  'cost',
  'variant_price',
  'variant_original_price',
  'variant_cost',
]);

/** Rows given for data validation and formats below the header. */
const FORMATTED_ROWS = 1000;

function addSheet(
  wb: ExcelJS.Workbook,
  name: string,
  columns: readonly string[],
  notes: Record<string, string>,
  lists: Record<string, readonly string[]>,
  rows: string[][],
): void {
  const ws = wb.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] });
  ws.columns = columns.map((c) => ({ header: c, key: c, width: Math.max(12, c.length + 4) }));
  const header = ws.getRow(1);
  header.font = { bold: true };
  columns.forEach((c, i) => {
    const cell = header.getCell(i + 1);
    const note = notes[c];
    if (note) cell.note = note;
  });
  for (const values of rows) {
    ws.addRow(
      columns.map((c, i) => {
        const v = values[i] ?? '';
        if (v === '') return null;
        if (MONEY_COLUMNS.has(c) && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
        if (
          /^(inventory_quantity|variant_inventory_quantity|option_min|option_max)$/.test(c) &&
          /^\d+$/.test(v)
        )
          return Number(v);
        return v;
      }),
    );
  }
  const last = Math.max(FORMATTED_ROWS, rows.length + 1);
  columns.forEach((c, i) => {
    const col = ws.getColumn(i + 1);
    if (TEXT_COLUMNS.has(c)) col.numFmt = '@';
    else if (MONEY_COLUMNS.has(c)) col.numFmt = '#,##0.00';
    const list = lists[c];
    if (list) {
      for (let r = 2; r <= last; r++) {
        ws.getCell(r, i + 1).dataValidation = {
          type: 'list',
          allowBlank: true,
          formulae: [`"${list.join(',')}"`],
          showErrorMessage: true,
          errorTitle: c,
          error: `Write one of: ${list.join(', ')}`,
        };
      }
    }
  });
}

function readCsv(file: string): { header: string[]; rows: string[][] } {
  const parsed = Papa.parse<string[]>(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''), {
    skipEmptyLines: true,
  });
  const [header = [], ...rows] = parsed.data;
  return { header, rows };
}

/** Reorders CSV rows into `columns` (columns the CSV lacks stay blank). */
function align(columns: readonly string[], csv: { header: string[]; rows: string[][] }): string[][] {
  const at = columns.map((c) => csv.header.indexOf(c));
  return csv.rows.map((r) => at.map((i) => (i < 0 ? '' : (r[i] ?? ''))));
}

async function main(): Promise<void> {
  writeFileSync(join(root, 'templates', 'products.csv'), `${PRODUCT_SHEET_COLUMNS.join(',')}\n`);
  writeFileSync(join(root, 'templates', 'options.csv'), `${OPTION_SHEET_COLUMNS.join(',')}\n`);

  const template = new ExcelJS.Workbook();
  template.creator = 'merchant-bulk';
  addSheet(template, 'products', PRODUCT_SHEET_COLUMNS, PRODUCT_NOTES, PRODUCT_LISTS, []);
  addSheet(template, 'options', OPTION_SHEET_COLUMNS, OPTION_NOTES, OPTION_LISTS, []);
  await template.xlsx.writeFile(join(root, 'templates', 'catalog.xlsx'));

  const everyday = new ExcelJS.Workbook();
  everyday.creator = 'merchant-bulk';
  addSheet(everyday, 'stock', ['sku', 'quantity'], STOCK_NOTES, {}, []);
  addSheet(
    everyday,
    'customers',
    ['id', 'name', 'phone', 'email', 'command'],
    CUSTOMER_NOTES,
    {
      command: ['upsert', 'create', 'update', 'skip'],
    },
    [],
  );
  await everyday.xlsx.writeFile(join(root, 'templates', 'stock-and-customers.xlsx'));

  // The sample workbook: the sample CSVs' columns and rows, in the same order.
  const products = readCsv(join(root, 'samples', 'catalog.csv'));
  const options = readCsv(join(root, 'samples', 'options.csv'));
  const sample = new ExcelJS.Workbook();
  sample.creator = 'merchant-bulk';
  addSheet(
    sample,
    'products',
    products.header,
    PRODUCT_NOTES,
    PRODUCT_LISTS,
    align(products.header, products),
  );
  addSheet(sample, 'options', options.header, OPTION_NOTES, OPTION_LISTS, align(options.header, options));
  await sample.xlsx.writeFile(join(root, 'samples', 'catalog.xlsx'));
  process.stdout.write(
    'wrote templates/products.csv, templates/options.csv, templates/catalog.xlsx, templates/stock-and-customers.xlsx, samples/catalog.xlsx\n',
  );
}

await main();
