import type { CustomerColumns } from '../../mapping/customer-sheet.js';
import type { CellValue, SheetColumn, SheetRow } from '../../sheets/sheet-row.js';
import { SourceColumns, type ColumnUse } from '../source-format.js';

/**
 * Columns of Shopify's customer CSV (admin → Customers → Export), older and current headers:
 * `First Name`, `Last Name`, `Email`, `Phone`, and `Default Address Phone` (current) or the
 * address block's `Phone` (older exports have only one phone column).
 */
const HEADERS = {
  first: ['first name'],
  last: ['last name'],
  email: ['email'],
  phone: ['phone'],
  addressPhone: ['default address phone'],
} as const;
type ShopifyCustomerColumn = keyof typeof HEADERS;

function notImported(header: string): string | undefined {
  const h = header.toLowerCase();
  if (h === 'customer id') return "Shopify's own id: customers are matched by phone, then email";
  if (
    h.startsWith('default address') ||
    [
      'company',
      'address1',
      'address2',
      'city',
      'province',
      'province code',
      'country',
      'country code',
      'zip',
    ].includes(h)
  )
    return 'address: the API takes no address on customers';
  if (h.startsWith('accepts')) return 'marketing consent: no such field in the API';
  if (h === 'tags' || h === 'note') return `${h}: no such field in the API`;
  if (h.startsWith('total ')) return 'order history: read-only in Shopify';
  if (h === 'tax exempt') return 'no such field in the API';
  return undefined;
}

/** The text of a phone cell: Shopify writes `'+16135550135` so spreadsheets keep the plus. */
function phoneText(text: string): string {
  return text.startsWith("'") ? text.slice(1).trim() : text;
}

/** Where a customer's phone may come from (`--phone-from`): their own field, or an address's too. */
export const PHONE_SOURCES = ['own', 'address'] as const;
export type PhoneSource = (typeof PHONE_SOURCES)[number];

/** Customers with no phone of their own but one in an address column (plan.json `source.phones`). */
export interface PhonesFromAddress {
  /** The address column, as the export writes it, and its letter. */
  header: string;
  letter: string;
  /** Customers without their own phone whose address gives one. */
  customers: number;
  /** `address`: those phones were taken (`--phone-from address`); `own`: not. */
  from: PhoneSource;
}

/**
 * A Shopify customer export read as the customers sheet (`name, phone, email`): the name from
 * first and last name, the phone from `Phone`. `Default Address Phone` is the default address's
 * phone, often a shipping or gift recipient's: taken only with `phoneFrom: 'address'`
 * (`--phone-from address`) when `Phone` is blank, and counted either way. Then normalised like
 * every phone. Cells keep their source column letters, so issues point at the export's cells.
 */
export class ShopifyCustomerConverter {
  private readonly cols: SourceColumns<ShopifyCustomerColumn>;
  private readonly phoneFrom: PhoneSource;
  /** Columns for mapCustomerRow: keys are the canonical fields, letters and headers the source's. */
  readonly columns: CustomerColumns;
  /** Rows without their own phone whose address has one. */
  readonly addressPhoneRows = new Set<number>();

  constructor(columns: readonly SheetColumn[], phoneFrom: PhoneSource = 'own') {
    this.cols = new SourceColumns(columns, HEADERS);
    this.phoneFrom = phoneFrom;
    const c = this.cols;
    const column = (field: string, from: ShopifyCustomerColumn): SheetColumn => {
      const src = c.column(from);
      return { key: field, header: src?.header ?? field, letter: src?.letter ?? '', index: src?.index ?? 0 };
    };
    this.columns = { name: column('name', 'first'), email: column('email', 'email') };
    if (c.has('phone') || c.has('addressPhone'))
      this.columns.phone = column('phone', c.has('phone') ? 'phone' : 'addressPhone');
  }

  row(row: SheetRow): SheetRow {
    const c = this.cols;
    const name = [c.text(row, 'first'), c.text(row, 'last')].filter((t) => t !== '').join(' ');
    let phone = phoneText(c.text(row, 'phone'));
    if (phone === '') {
      const address = phoneText(c.text(row, 'addressPhone'));
      if (address !== '') {
        this.addressPhoneRows.add(row.rowNumber);
        if (this.phoneFrom === 'address') phone = address;
      }
    }
    const cells: Record<string, CellValue> = { name, phone, email: c.text(row, 'email') };
    return { sheet: row.sheet, rowNumber: row.rowNumber, cells };
  }

  /** The plan's count of phones in an address column (undefined: the export has none). */
  phonesFromAddress(): PhonesFromAddress | undefined {
    const col = this.cols.column('addressPhone');
    if (col === undefined) return undefined;
    return {
      header: col.header,
      letter: col.letter,
      customers: this.addressPhoneRows.size,
      from: this.phoneFrom,
    };
  }

  /** Why a customer without their own phone is not created with the address's (`own`), or undefined. */
  addressPhoneHint(rowNumber: number): string | undefined {
    const col = this.cols.column('addressPhone');
    if (this.phoneFrom !== 'own' || col === undefined || !this.addressPhoneRows.has(rowNumber))
      return undefined;
    return `its ${col.header} (column ${col.letter}) has a phone, but that is the address's, often a shipping or gift recipient's, so it is not taken as the customer's own: import with --phone-from address to take it`;
  }

  /** Every source column once: the field it feeds, or not imported. */
  uses(): ColumnUse[] {
    const c = this.cols;
    c.use('first', 'name');
    c.use('last', 'name');
    c.use('email', 'email');
    c.use('phone', 'phone');
    if (this.phoneFrom === 'address')
      c.use('addressPhone', 'phone', 'when Phone is blank (--phone-from address)');
    else
      c.use(
        'addressPhone',
        null,
        "the address's phone, often a recipient's: taken when Phone is blank only with --phone-from address",
      );
    return c.uses(notImported);
  }

  /** How a phone column of the plan is described (`Phones from an address: …`). */
  static describe(p: PhonesFromAddress): string {
    const n = `${p.customers} customer${p.customers === 1 ? '' : 's'}`;
    return p.from === 'address'
      ? `${n} without a Phone of their own get the phone of ${p.header} (column ${p.letter}) (--phone-from address)`
      : `${n} without a Phone of their own have one in ${p.header} (column ${p.letter}), often a recipient's: not taken (--phone-from own, the default); --phone-from address takes them`;
  }
}
