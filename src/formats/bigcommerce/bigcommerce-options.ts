import { priceOrder } from '../source-format.js';

/** `[RB]Size=Small,[S]Color=Red` (a SKU or Rule row's Product Name) as its option name/value pairs. */
export function bigCommerceOptions(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const part of text.split(/,(?=\s*\[[A-Za-z]+\])/)) {
    const m = /^\s*(?:\[[A-Za-z]+\])?\s*([^=]+?)\s*=\s*(.*?)\s*$/.exec(part);
    if (m?.[1] !== undefined && m[2] !== undefined && m[2] !== '') out.push([m[1], m[2]]);
  }
  return out;
}

/** A Rule row's Price: `[ADD]5`, `[REMOVE]2.50` or `[FIXED]20` (a bare amount is fixed). */
export function ruleAdjustment(text: string): { kind: 'add' | 'fixed'; amount: number } | undefined {
  const m = /^\s*(?:\[(ADD|REMOVE|FIXED)\])?\s*(-?[\d.,]+)\s*$/i.exec(text);
  if (m?.[2] === undefined) return undefined;
  const amount = priceOrder(m[2]);
  if (!Number.isFinite(amount)) return undefined;
  const kind = (m[1] ?? 'FIXED').toUpperCase();
  if (kind === 'FIXED') return { kind: 'fixed', amount };
  return { kind: 'add', amount: kind === 'REMOVE' ? -amount : amount };
}

/** An amount as the sheet's text (at most 4 decimals, no float noise). */
export function amountText(n: number): string {
  return String(Math.round(n * 10_000) / 10_000);
}
