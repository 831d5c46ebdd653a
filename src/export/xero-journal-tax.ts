import { taxOnNet } from './accounting-tax.js';
import { lineOrder, type Journal, type JournalLine } from './accounting-journal.js';

/**
 * A journal as Xero's manual journal import takes it with the store's tax rate on its lines.
 *
 * Xero's import has a TaxRate column on every line and no column for a tax amount or for "amounts
 * are": an imported line's Amount is before tax, and Xero adds the tax of each line at its rate to
 * the VAT/GST account when the journal is posted (Xero Central, "Enter multiple manual journals
 * using an import template", https://help.xero.com/nz/ManualJournalsImport: "TaxRate: Enter the
 * full tax rate name as it appears in your tax settings"; ROLLER's Xero export guide,
 * https://support.roller.software/hc/en-us/articles/360001259635-Xero-Export-Report: "Xero …
 * adds the tax amount to the GST account when the journal is posted"). So the lines the store's
 * tax covers carry its rate, and Xero's VAT return sees the sales by rate.
 *
 * The book's `Tax` lines are left out (Xero computes the tax), and the tax Xero computes — each
 * taxed line's net × rate, rounded half away from zero — is made the store's tax for the journal to
 * the minor unit: a few minor units move from the largest taxed line to a `Tax rounding` line at
 * the rate with no tax (on the `rounding` account), so the journal still balances with Xero's tax
 * included. Each returned line's `tax` is the tax Xero computes on it (debit positive).
 */
export interface XeroJournalTax {
  /** The store's rate in percent (0: no line is taxed, the book's tax lines are kept). */
  percent: number;
  /** The account of the `Tax rounding` line. */
  roundingAccount: string;
}

export function xeroJournalTax(journal: Journal, o: XeroJournalTax): Journal {
  const p = o.percent;
  if (p === 0) return { ...journal, lines: journal.lines.map((l) => ({ ...l, tax: 0 })) };
  const isTaxed = (l: JournalLine): boolean => l.label !== 'Tax' && l.rate === p;
  // What the store charged (debit positive: a credit of tax is negative).
  const want = journal.lines.filter((l) => l.label === 'Tax').reduce((s, l) => s + l.amount, 0);
  const lines: JournalLine[] = journal.lines
    .filter((l) => l.label !== 'Tax')
    .map((l) => ({ ...l, tax: isTaxed(l) ? taxOnNet(l.amount, p) : 0 }));
  const have = lines.reduce((s, l) => s + (l.tax ?? 0), 0);
  if (have === want) return { ...journal, lines };
  const largest = lines
    .map((l, i) => ({ l, i }))
    .filter(({ l }) => isTaxed(l) && l.amount !== 0)
    .sort((a, b) => Math.abs(b.l.amount) - Math.abs(a.l.amount))[0];
  const moved = largest ? netForTax(largest.l, want - (have - (largest.l.tax ?? 0)), p) : null;
  if (largest && moved !== null) {
    lines[largest.i] = { ...largest.l, amount: moved, tax: taxOnNet(moved, p) };
    lines.push({
      event: largest.l.event,
      label: 'Tax rounding',
      account: o.roundingAccount,
      rate: 0,
      amount: largest.l.amount - moved,
      tax: 0,
    });
  } else {
    // No taxed line to move from (a change whose tax moved without its sales): the rest of the
    // store's tax as a line of its own at no rate, so the journal balances.
    const tax = journal.lines.find((l) => l.label === 'Tax');
    lines.push({
      event: tax?.event ?? 'sale',
      label: 'Tax',
      account: tax?.account ?? o.roundingAccount,
      rate: null,
      amount: want - have,
      tax: 0,
    });
  }
  return { ...journal, lines: lines.sort(lineOrder) };
}

/**
 * The net amount nearest the line's whose tax at `p` is `tax` (taxOnNet is monotonic: every whole
 * tax is reached when `p` < 100), or null when none lies within reach.
 */
function netForTax(line: JournalLine, tax: number, p: number): number | null {
  const step = Math.ceil(100 / p) + 1;
  const limit = (Math.abs(tax - taxOnNet(line.amount, p)) + 1) * step + step;
  for (let d = 0; d <= limit; d++) {
    for (const x of d === 0 ? [line.amount] : [line.amount - d, line.amount + d]) {
      if (Math.sign(x) === Math.sign(line.amount) && taxOnNet(x, p) === tax) return x;
    }
  }
  return null;
}
