import { priceOrder } from '../source-format.js';

/**
 * `[RB]Size=Small,[S]Color=Red` (a SKU or Rule row's Product Name) as its option name/value pairs.
 * A rule may list several values of one option, the later ones without the `[CODE]`
 * (`[RB]Size=9",Size=9.5"`): one pair each. A colour swatch's image file after the value
 * (`[CS]Colors=Red:2037.preview.jpg`) is not part of it.
 */
export function bigCommerceOptions(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const part of text.split(/,(?=\s*(?:\[[A-Za-z]+\])?[^,=[\]]+=)/)) {
    const m = /^\s*(?:\[[A-Za-z]+\])?\s*([^=]+?)\s*=\s*(.*?)\s*$/.exec(part);
    const value = m?.[2]?.replace(/:[^:]*\.(?:jpe?g|png|gif|webp)$/i, '').trim();
    if (m?.[1] !== undefined && value !== undefined && value !== '') out.push([m[1], value]);
  }
  return out;
}

/**
 * Whether a rule's option values take in a variant's: for each option the rule names, the
 * variant's value is one of those it lists (option names compared without case).
 */
export function ruleMatchesOptions(
  rule: readonly [string, string][],
  variant: readonly [string, string][],
): boolean {
  if (rule.length === 0) return false;
  const wanted = new Map<string, Set<string>>();
  for (const [n, v] of rule) {
    const k = n.toLowerCase();
    wanted.set(k, (wanted.get(k) ?? new Set()).add(v));
  }
  for (const [n, values] of wanted) {
    const has = variant.find(([vn]) => vn.toLowerCase() === n)?.[1];
    if (has === undefined || !values.has(has)) return false;
  }
  return true;
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
