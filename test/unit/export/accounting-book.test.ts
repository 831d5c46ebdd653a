import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors/usage-error.js';
import { EMPTY_ACCOUNTS, parseAccounts } from '../../../src/export/accounting-accounts.js';
import { ContactBook, parseContactMode } from '../../../src/export/accounting-contacts.js';
import { AccountingBook, type AccountingBookOptions } from '../../../src/export/accounting-documents.js';
import { emptyLedger, ledgerNet, type Ledger } from '../../../src/export/accounting-ledger.js';
import { taxPolicy, type TaxPolicy } from '../../../src/export/accounting-tax.js';
import { recomputeOrderMoney } from '../../../src/sandbox/order-money.js';
import type { Order } from '../../../src/schema/order.js';
import { makeOrder, STORE } from './order-factory.js';

const policy: TaxPolicy = {
  mode: 'exclusive',
  percent: 10,
  taxed: '10% Sales',
  zero: 'No tax',
  computation: 'line',
};

function book(ledger: Ledger | undefined, extra: Partial<AccountingBookOptions> = {}): AccountingBook {
  return new AccountingBook({
    profile: 'xero',
    store: STORE,
    policy,
    accounts: parseAccounts('payment=090'),
    contacts: new ContactBook({ mode: 'distinct' }, ledger?.contacts ?? {}),
    invoiceDate: 'created',
    basis: 'paid',
    invoicePrefix: '',
    dueDays: 0,
    now: new Date('2026-11-05T00:00:00Z'),
    ...(ledger ? { ledger } : {}),
    payments: true,
    ...extra,
  });
}

/** A paid order with consistent money (10% tax on top), changed later by the helpers below. */
function order(id = 'ord_1', number = '1001'): Order {
  const o = makeOrder({ id, number, lines: [{ price: 1000, quantity: 3 }, { price: 550 }] });
  return recomputeOrderMoney({ ...o, order_status: 'completed' }, { ...STORE, service_charge: null });
}
const later = (o: Order, iso: string, change: Partial<Order> = {}): Order => ({
  ...o,
  ...change,
  updated_at: iso,
});
const refundOne = (o: Order, iso: string): Order => {
  const lines = o.line_items.map((l, i) =>
    i === 0
      ? {
          ...l,
          quantity: l.quantity - 1,
          quantity_float: l.quantity - 1,
          total_amount: l.price * (l.quantity - 1),
        }
      : l,
  );
  return later(recomputeOrderMoney({ ...o, line_items: lines }, { ...STORE, service_charge: null }), iso);
};

describe('an accounting feed keeps each invoice to one export', () => {
  it('credits exactly the difference of a partial refund, then the rest on a full refund; notes export nothing', () => {
    const ledger = emptyLedger();
    const first = order();
    const r1 = book(ledger).add(first);
    expect(r1.documents.map((d) => [d.type, d.number, d.total])).toEqual([
      ['invoice', '1001', first.total_amount],
    ]);
    expect(r1.payments.map((p) => [p.number, p.amount, p.account])).toEqual([
      ['1001', first.total_amount, '090'],
    ]);
    expect(ledgerNet(ledger)).toBe(first.total_amount);

    // A note: the order changed, its amounts did not.
    const note = later(first, '2026-11-02T00:00:00Z', { remark: 'leave at the door' });
    const r2 = book(ledger).add(note);
    expect(r2.documents).toEqual([]);
    expect(r2.change?.action).toMatch(/^none: amounts unchanged/);

    // One of three units refunded: a credit note for exactly what the order lost.
    const partial = refundOne(note, '2026-11-03T00:00:00Z');
    const r3 = book(ledger).add(partial);
    expect(r3.documents).toHaveLength(1);
    const credit = r3.documents[0]!;
    expect(credit).toMatchObject({
      type: 'credit_note',
      number: 'CN-1001-2',
      reference: '1001',
      date: '2026-11-03',
    });
    expect(credit.total).toBe(first.total_amount - partial.total_amount);
    expect(credit.lines.reduce((s, l) => s + l.amount + l.tax, 0)).toBe(credit.total);
    expect(r3.payments).toEqual([]); // the refund is not a payment
    expect(ledgerNet(ledger)).toBe(partial.total_amount);

    // The rest refunded: the order leaves revenue, a credit note for what still stood.
    const full = later(partial, '2026-11-04T00:00:00Z', { payment_status: 'refunded' });
    const r4 = book(ledger).add(full);
    expect(r4.documents.map((d) => [d.type, d.number, d.total])).toEqual([
      ['credit_note', 'CN-1001-3', partial.total_amount],
    ]);
    expect(ledgerNet(ledger)).toBe(0);
    expect(ledger.orders['ord_1']).toMatchObject({ docs: 3, total: 0 });

    // Seen again after that, refunded and unchanged: nothing.
    expect(book(ledger).add(later(full, '2026-11-05T00:00:00Z', { remark: 'done' })).documents).toEqual([]);
  });

  it('credits a cancellation in full, invoices an increase under a new number, and pays it', () => {
    const ledger = emptyLedger();
    const a = order('ord_a', '2001');
    const b = order('ord_b', '2002');
    book(ledger).add(a);
    book(ledger).add(b);
    const cancelled = later(a, '2026-11-02T00:00:00Z', {
      order_status: 'cancelled',
      payment_status: 'refunded',
    });
    expect(
      book(ledger)
        .add(cancelled)
        .documents.map((d) => [d.type, d.number, d.total]),
    ).toEqual([['credit_note', 'CN-2001-2', a.total_amount]]);
    // One more unit of b's first line: the order's total rises.
    const lines = b.line_items.map((l, i) =>
      i === 0 ? { ...l, quantity: 4, quantity_float: 4, total_amount: l.price * 4 } : l,
    );
    const more = later(
      recomputeOrderMoney({ ...b, line_items: lines }, { ...STORE, service_charge: null }),
      '2026-11-03T00:00:00Z',
    );
    const r = book(ledger).add(more);
    expect(r.documents.map((d) => [d.type, d.number, d.total])).toEqual([
      ['invoice', '2002-2', more.total_amount - b.total_amount],
    ]);
    expect(r.documents[0]?.lines[0]).toMatchObject({ quantity: 1, unitAmount: 1000, amount: 1000 });
    expect(r.payments.map((p) => [p.number, p.amount])).toEqual([
      ['2002-2', more.total_amount - b.total_amount],
    ]);
    expect(ledgerNet(ledger)).toBe(more.total_amount);
  });

  it('moves an amount between lines at the same total as a credit note and a new invoice', () => {
    const ledger = emptyLedger();
    const o = order();
    book(ledger).add(o);
    const swapped = later(
      {
        ...o,
        line_items: o.line_items.map((l, i) =>
          i === 0
            ? { ...l, total_amount: l.total_amount - 100, price: (l.total_amount - 100) / 3 }
            : { ...l, total_amount: l.total_amount + 100, price: l.price + 100 },
        ),
      },
      '2026-11-02T00:00:00Z',
    );
    const docs = book(ledger).add(swapped).documents;
    expect(docs.map((d) => d.type)).toEqual(['credit_note', 'invoice']);
    expect(docs[0]?.total).toBe(docs[1]?.total);
    expect(ledgerNet(ledger)).toBe(o.total_amount);
  });

  it('on the accrual basis invoices an unpaid confirmed order, and pays it when it is paid', () => {
    const ledger = emptyLedger();
    const unpaid = { ...order(), order_status: 'confirmed' as const, payment_status: 'pending' as const };
    const r1 = book(ledger, { basis: 'accrual' }).add(unpaid);
    expect(r1.documents).toHaveLength(1);
    expect(r1.payments).toEqual([]);
    const paid = later(unpaid, '2026-11-09T00:00:00Z', { payment_status: 'paid', payment_method: 'card' });
    const r2 = book(ledger, {
      basis: 'accrual',
      accounts: parseAccounts('payment=090,payment.card=091'),
    }).add(paid);
    expect(r2.documents).toEqual([]);
    expect(r2.payments.map((p) => [p.number, p.amount, p.account, p.date])).toEqual([
      ['1001', unpaid.total_amount, '091', '2026-11-09'],
    ]);
    // Paid basis: the same unpaid order is no revenue, so no invoice.
    expect(book(emptyLedger()).add(unpaid).documents).toEqual([]);
  });

  it('dates invoices by creation, payment or export', () => {
    const o = later(order(), '2026-12-20T10:00:00Z');
    expect(book(undefined).add(o).documents[0]?.date).toBe('2026-11-01');
    expect(book(undefined, { invoiceDate: 'paid' }).add(o).documents[0]?.date).toBe('2026-12-20');
    expect(book(undefined, { invoiceDate: 'exported', dueDays: 14 }).add(o).documents[0]).toMatchObject({
      date: '2026-11-05',
      due: '2026-11-19',
    });
  });
});

describe('contacts', () => {
  const customer = (id: string, name: string, phone = '') => ({ ...makeOrder().customer, id, name, phone });
  it('keeps two customers who share a name apart, the same way in every run', () => {
    const given: Record<string, string> = {};
    const a = new ContactBook(parseContactMode(undefined), given);
    expect(a.contactFor(customer('cus_1', 'Amirul', '60120001111'))).toBe('Amirul');
    expect(a.contactFor(customer('cus_2', 'Amirul', '60120002222'))).toBe('Amirul (…2222)');
    expect(a.contactFor(customer('cus_3', 'amirul', '60120002222'))).toBe('amirul (cus_3)');
    expect(a.contactFor(customer('cus_1', 'Amirul'))).toBe('Amirul');
    // A later run with the saved names: the same contacts.
    const b = new ContactBook(parseContactMode(undefined), { ...given });
    expect(b.contactFor(customer('cus_2', 'Amirul', '60120002222'))).toBe('Amirul (…2222)');
    expect(b.contactFor(customer('cus_4', 'Amirul'))).toBe('Amirul (cus_4)');
  });

  it('merges by name, adds the email, or uses one contact when asked', () => {
    const c = { ...customer('cus_1', 'Siti'), email: 'siti@example.com' };
    expect(new ContactBook(parseContactMode('name')).contactFor(c)).toBe('Siti');
    expect(new ContactBook(parseContactMode('name-email')).contactFor(c)).toBe('Siti (siti@example.com)');
    expect(new ContactBook(parseContactMode('single:"Online customers"')).contactFor(c)).toBe(
      'Online customers',
    );
    expect(() => parseContactMode('everyone')).toThrow(UsageError);
  });
});

describe('accounts and tax', () => {
  it('parses --accounts and refuses what would misbook', () => {
    expect(parseAccounts('sales=200, shipping=210,tips=260,payment=090,payment.card=091')).toEqual({
      lines: { sales: '200', shipping: '210', tips: '260' },
      payment: '090',
      paymentByMethod: { card: '091' },
    });
    expect(parseAccounts('# accounts\nsales,4000\ntax=2200\n').lines).toEqual({ sales: '4000', tax: '2200' });
    expect(() => parseAccounts('salez=200')).toThrow(/unknown kind "salez"/);
    expect(() => parseAccounts('sales=')).toThrow(UsageError);
    expect(() => taxPolicy(STORE, 'xero', { taxType: 'x' }, parseAccounts('tax=200'))).toThrow(
      /booked as sales/,
    );
  });

  it('never leaves the tax column blank: the rate the store implies, or exit 2 naming the flag', () => {
    const gb = { country: 'GB', tax: { inclusive: true, percent: 20 } };
    expect(taxPolicy(gb, 'xero', {}, EMPTY_ACCOUNTS)).toMatchObject({
      mode: 'inclusive',
      taxed: '20% (VAT on Income)',
      zero: 'No VAT',
    });
    const my = { country: 'MY', tax: { inclusive: false, percent: 6 } };
    const err = (() => {
      try {
        taxPolicy(my, 'xero', {}, EMPTY_ACCOUNTS);
      } catch (e) {
        return e as UsageError;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect(err?.option).toBe('tax-type');
    expect(err?.exitCode).toBe(2);
    expect(taxPolicy(my, 'xero', { taxType: 'SST 6%' }, EMPTY_ACCOUNTS)).toMatchObject({
      mode: 'exclusive',
      taxed: 'SST 6%',
      zero: 'Tax Exempt',
    });
    expect(() => taxPolicy(my, 'quickbooks', { taxType: 'SR' }, EMPTY_ACCOUNTS)).toThrow(/--zero-tax-type/);
    // QuickBooks Online UK: the VAT codes Intuit lists as set up for a UK company, no flag needed.
    expect(taxPolicy(gb, 'quickbooks', {}, EMPTY_ACCOUNTS)).toMatchObject({
      mode: 'inclusive',
      taxed: '20.0% S',
      zero: 'No VAT',
    });
    // Elsewhere, one message names both flags when both are needed.
    expect(() =>
      taxPolicy({ country: 'AU', tax: { inclusive: true, percent: 10 } }, 'quickbooks', {}, EMPTY_ACCOUNTS),
    ).toThrow(/tax codes for a store in AU are not known here.*--tax-type, and .*--zero-tax-type/);
    expect(taxPolicy(my, 'xero', {}, parseAccounts('tax=820'))).toMatchObject({
      mode: 'line',
      zero: 'Tax Exempt',
    });
  });
});
