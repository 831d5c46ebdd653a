import { describe, expect, it } from 'vitest';
import { EMPTY_ACCOUNTS } from '../../../src/export/accounting-accounts.js';
import { ContactBook } from '../../../src/export/accounting-contacts.js';
import { AccountingBook, type AccountingDocument } from '../../../src/export/accounting-documents.js';
import { emptyLedger, ledgerNet, type Ledger } from '../../../src/export/accounting-ledger.js';
import { taxPolicy } from '../../../src/export/accounting-tax.js';
import type { RevenueBasis } from '../../../src/export/order-selection.js';
import { recomputeOrderMoney } from '../../../src/sandbox/order-money.js';
import type { Order, Store } from '../../../src/schema/index.js';
import { makeOrder, STORE } from './order-factory.js';

/** Issue 39: a refund reverses a sale on either basis; a negative total is a credit note. */
const UK: Store = {
  ...STORE,
  country: 'GB',
  currency: 'GBP',
  timezone: 'Europe/London',
  tax: { inclusive: true, percent: 20 },
};

function book(ledger: Ledger | undefined, basis: RevenueBasis, store: Store = UK): AccountingBook {
  return new AccountingBook({
    profile: 'xero',
    store,
    policy: taxPolicy(store, 'xero', {}, EMPTY_ACCOUNTS),
    accounts: EMPTY_ACCOUNTS,
    contacts: new ContactBook({ mode: 'distinct' }, ledger?.contacts ?? {}),
    invoiceDate: 'created',
    basis,
    invoicePrefix: '',
    dueDays: 0,
    now: new Date('2026-11-05T00:00:00Z'),
    ...(ledger ? { ledger } : {}),
    payments: false,
  });
}

/** A completed UK order (VAT inside the prices) with lines whose per-line VAT rounds unevenly. */
function order(paymentStatus: Order['payment_status'] = 'pending'): Order {
  const o = makeOrder({
    lines: [{ price: 1099, quantity: 3 }, { price: 457 }, { price: 233, quantity: 2 }],
    taxInclusive: true,
  });
  return recomputeOrderMoney(
    { ...o, order_status: 'completed', payment_status: paymentStatus },
    { tax: UK.tax, service_charge: null },
  );
}

const refundOne = (o: Order, iso: string): Order => {
  const lines = o.line_items.map((l, i) =>
    i === 0 ? { ...l, quantity: 2, quantity_float: 2, total_amount: l.price * 2 } : l,
  );
  return {
    ...recomputeOrderMoney({ ...o, line_items: lines }, { tax: UK.tax, service_charge: null }),
    updated_at: iso,
  };
};

/** The VAT Xero takes out of a document's lines: per line, rounded half away from zero. */
const xeroVat = (d: AccountingDocument): number =>
  d.lines
    .filter((l) => l.taxType === '20% (VAT on Income)')
    .reduce((s, l) => s + Math.sign(l.amount) * Math.round(Math.abs((l.amount * 20) / 120)), 0);

describe('refunds on the accrual basis', () => {
  it('a partial refund after invoicing is a credit note for exactly the difference, its VAT the change in VAT', () => {
    const ledger = emptyLedger();
    const first = order('paid');
    const [invoice] = book(ledger, 'accrual').add(first).documents;
    expect(invoice?.type).toBe('invoice');
    expect(xeroVat(invoice as AccountingDocument)).toBe(first.tax_amount);
    const partial = refundOne(first, '2026-11-03T10:00:00Z');
    const r = book(ledger, 'accrual').add(partial);
    expect(r.documents.map((d) => [d.type, d.number, d.total])).toEqual([
      ['credit_note', 'CN-1001-2', first.total_amount - partial.total_amount],
    ]);
    // (A credit note's lines are credits: positive amounts, as Xero's credit note shows them.)
    expect(xeroVat(r.documents[0] as AccountingDocument)).toBe(first.tax_amount - partial.tax_amount);
    expect(ledgerNet(ledger)).toBe(partial.total_amount);
  });

  it('a full refund after invoicing credits what stood (it used to read "none: amounts unchanged")', () => {
    const ledger = emptyLedger();
    const first = order('paid');
    book(ledger, 'accrual').add(first);
    const refunded = { ...first, payment_status: 'refunded' as const, updated_at: '2026-11-04T00:00:00Z' };
    const r = book(ledger, 'accrual').add(refunded);
    expect(r.documents.map((d) => [d.type, d.total])).toEqual([['credit_note', first.total_amount]]);
    expect(r.change?.action).toBe('credit note CN-1001-2');
    expect(ledgerNet(ledger)).toBe(0);
  });
});

describe('an order whose total is negative', () => {
  it('is a credit note on either basis, never an invoice with a negative total', () => {
    for (const basis of ['paid', 'accrual'] as const) {
      const o = order('paid');
      const negative: Order = {
        ...o,
        adjustment_amount: -(o.total_before_tax + 1451),
        total_before_tax: -1451,
        tax_amount: 0,
        total_amount: -1451,
      };
      const docs = book(undefined, basis).add(negative).documents;
      expect(docs.map((d) => [d.type, d.number, d.total])).toEqual([['credit_note', 'CN-1001-1', 1451]]);
    }
  });
});
