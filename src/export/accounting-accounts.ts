import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors/usage-error.js';
import type { AccountingProfile } from './accounting-profile.js';

/**
 * The kinds of invoice line that get an account of their own (Xero `*AccountCode`) or a
 * product/service of their own (QuickBooks `Item (Product/Service)`): `--accounts
 * sales=200,shipping=210,service-charge=215,tips=260,discount=205,rounding=860,tax=820`.
 *
 * - `sales`: line items and priced order options (answers).
 * - `shipping`: the order's service (delivery, pickup).
 * - `service-charge`, `tips`, `discount`: as named; `adjustment`: the order's adjustment and the
 *   "difference to the stated total" of an order whose own figures do not add up.
 * - `rounding`: the difference between the tax the program computes line by line and the tax the
 *   store charged (a few minor units per invoice at most).
 * - `tax`: a liability account, used only where tax must be a line of its own (see taxPolicy; the
 *   journal profiles always); never the sales account.
 * - `receivable`: journal profiles on the accrual basis: where sales not yet paid wait (no default).
 */
export const ACCOUNT_KINDS = [
  'sales',
  'shipping',
  'service-charge',
  'tips',
  'discount',
  'adjustment',
  'rounding',
  'tax',
  'receivable',
] as const;
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

/** What `--accounts` (or its mapping file) gives: accounts per line kind and per payment method. */
export interface AccountMap {
  lines: Partial<Record<AccountKind, string>>;
  /** The account payments go to (Xero: a bank account code; QuickBooks: "Deposit To"). */
  payment?: string;
  /** Per payment method (`payment.card=091`), before `payment`. */
  paymentByMethod: Record<string, string>;
}

/**
 * The defaults of a kind not given. Xero's default chart of accounts: 200 Sales, 260 Other Revenue
 * (tips are not sales: often owed to staff), 860 Rounding. QuickBooks: a product/service per kind,
 * named after it (the import creates the ones missing when asked to). Any other kind takes the
 * sales account; `tax` has no default.
 */
export const DEFAULT_ACCOUNTS: Record<AccountingProfile, Partial<Record<AccountKind, string>>> = {
  xero: { sales: '200', tips: '260', rounding: '860' },
  quickbooks: {
    sales: 'Sales',
    shipping: 'Shipping',
    'service-charge': 'Service charge',
    tips: 'Tips',
    discount: 'Discount',
    adjustment: 'Adjustment',
    rounding: 'Rounding',
  },
};

export const EMPTY_ACCOUNTS: AccountMap = { lines: {}, paymentByMethod: {} };

/**
 * Parses `sales=200,shipping=210,payment=090,payment.card=091` (or the lines of a mapping file: one
 * such list, or `key,value`, per line, `#` comments). Pairs are joined by commas and nothing else:
 * `sales=200;shipping=210` would otherwise book every line to an account named `200;shipping=210`.
 * Throws UsageError naming `source` and the bad pair for a pair that is not `kind=CODE` (a code
 * holding `=` or `;`, a blank code), an unknown kind or a key given twice. A QuickBooks name holding
 * a comma goes in a mapping file (`sales,Sales, retail` is not split).
 */
export function parseAccounts(text: string, source = '--accounts'): AccountMap {
  const out: AccountMap = { lines: {}, paymentByMethod: {} };
  const seen = new Set<string>();
  const pairs: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const entry = line.replace(/#.*$/, '').trim();
    if (entry === '') continue;
    // A list of kind=CODE pairs, or (a mapping file's line without `=`) `kind,CODE`.
    if (entry.includes('='))
      pairs.push(
        ...entry
          .split(',')
          .map((e) => e.trim())
          .filter((e) => e !== ''),
      );
    else pairs.push(entry.replace(/\s*,\s*/, '='));
  }
  for (const entry of pairs) {
    const m = /^([^=;,\s]+)\s*=\s*([^=;]*)$/.exec(entry);
    const key = m?.[1]?.trim().toLowerCase() ?? '';
    const value = m?.[2]?.trim() ?? '';
    if (!m || value === '') {
      throw new UsageError(
        `${source}: "${entry}" is not kind=CODE: give pairs such as sales=200 joined by commas (sales=200,shipping=210)`,
        'accounts',
      );
    }
    if (seen.has(key)) throw new UsageError(`${source}: ${key} is given twice`, 'accounts');
    seen.add(key);
    if (key === 'payment') out.payment = value;
    else if (key.startsWith('payment.') && key.length > 'payment.'.length) {
      out.paymentByMethod[key.slice('payment.'.length)] = value;
    } else if ((ACCOUNT_KINDS as readonly string[]).includes(key)) {
      out.lines[key as AccountKind] = value;
    } else {
      throw new UsageError(
        `${source}: unknown kind "${key}" (use ${ACCOUNT_KINDS.join(', ')}, payment or payment.METHOD)`,
        'accounts',
      );
    }
  }
  return out;
}

/**
 * The text of `--accounts`: the list itself (`sales=200,tips=260`), or the content of the mapping
 * file it names (a value without `=`), checked with parseAccounts. A file that cannot be read, or
 * that does not parse, is a UsageError.
 */
export async function accountsText(value: string, cwd: string): Promise<string> {
  if (value.includes('=')) {
    parseAccounts(value);
    return value;
  }
  const { resolve } = await import('node:path');
  let text: string;
  try {
    text = await readFile(resolve(cwd, value), 'utf8');
  } catch (error) {
    throw new UsageError(
      `--accounts ${value}: cannot read the mapping file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      'accounts',
    );
  }
  parseAccounts(text, value);
  return text;
}

/** The account (Xero) or product/service (QuickBooks) of a kind of line. */
export function accountFor(kind: AccountKind, map: AccountMap, profile: AccountingProfile): string {
  const own = map.lines[kind] ?? DEFAULT_ACCOUNTS[profile][kind];
  if (own !== undefined) return own;
  return map.lines.sales ?? (DEFAULT_ACCOUNTS[profile].sales as string);
}

/** The account a payment by `method` goes to, or undefined when none is given. */
export function paymentAccountFor(method: string, map: AccountMap): string | undefined {
  return map.paymentByMethod[method.toLowerCase()] ?? map.payment;
}

/** True when `--accounts` names an account for payments (`payment=`, `payment.METHOD=`). */
export function hasPaymentAccounts(map: AccountMap): boolean {
  return map.payment !== undefined || Object.keys(map.paymentByMethod).length > 0;
}

/**
 * Refuses payment accounts that would misbook (UsageError, exit 2): one equal to the account of a
 * kind of line (`payment.card=200` with sales on 200 books the money received as sales and the sale
 * twice), and payment accounts given where nothing uses them (an invoice profile without
 * `--payments`: the user believes the payments are booked when they are not).
 */
export function checkPaymentAccounts(
  map: AccountMap,
  profile: AccountingProfile,
  use: { payments: boolean; journal: boolean },
): void {
  const given: [string, string][] = [
    ...(map.payment === undefined ? [] : [['payment', map.payment] as [string, string]]),
    ...Object.entries(map.paymentByMethod).map(([m, a]): [string, string] => [`payment.${m}`, a]),
  ];
  if (given.length === 0) return;
  if (!use.payments && !use.journal) {
    throw new UsageError(
      `--accounts: ${given.map(([k, a]) => `${k}=${a}`).join(', ')} ${given.length === 1 ? 'is' : 'are'} used only with --payments FILE (or a journal profile): add --payments FILE or leave the payment accounts out`,
      'accounts',
    );
  }
  for (const [key, account] of given) {
    const clash = ACCOUNT_KINDS.find((k) => accountFor(k, map, profile) === account);
    if (clash !== undefined) {
      throw new UsageError(
        `--accounts: ${key}=${account} is the ${clash} account: payments must go to a bank or clearing account of their own`,
        'accounts',
      );
    }
  }
}
