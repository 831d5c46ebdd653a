import { cellError, cellOk } from '../sheets/cell-result.js';
import type { CellResult } from '../sheets/cell-result.js';
import { parseIntegerCell } from '../sheets/integer-cell.js';
import { formatMoney, parseMoney } from '../sheets/money.js';
import type { DesiredChoice } from './product-desired.js';

/**
 * The `option_choices` cell: the full choice list of a selection option.
 *
 *     Small|Medium:1.50|Large:3.00:20
 *
 * - choices are separated by `|`, in storefront order;
 * - each choice is `text`, `text:price` or `text:price:quantity` (price in currency units, or minor
 *   units with `money: 'minor'`; quantity a whole number); `text::5` gives a quantity without a price;
 * - a literal `|`, `:` or `\` inside a text is written `\|`, `\:`, `\\` (`10\:30 slot:2.00`).
 */
export interface ChoiceMoneyOptions {
  decimals: number;
  decimalComma?: boolean;
  money?: 'units' | 'minor';
}

/**
 * Splits on unescaped `sep`. With `final`, every `\x` becomes `x`; otherwise only `\sep` is resolved
 * and other escapes are kept for the next level.
 */
function splitEscaped(text: string, sep: string, final: boolean): string[] | undefined {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\\') {
      const next = text[i + 1];
      if (next === undefined) return undefined;
      cur += final || next === sep ? next : ch + next;
      i++;
    } else if (ch === sep) {
      out.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  out.push(cur);
  return out;
}

const PLAIN_AMOUNT = /^[+-]?[\d.,'\u00a0 ]+$/;

const FORMAT_HINT =
  'write choices as text[:price[:quantity]] separated by |, e.g. Small|Large:2.00 (write \\: for a colon inside a text)';

export function parseOptionChoices(text: string, options: ChoiceMoneyOptions): CellResult<DesiredChoice[]> {
  const entries = splitEscaped(text, '|', false);
  if (entries === undefined)
    return cellError('invalid_option_choices', `a trailing \\ escapes nothing: ${FORMAT_HINT}`);
  const choices: DesiredChoice[] = [];
  const moneyOpts = { decimalComma: options.decimalComma ?? false, minor: options.money === 'minor' };
  for (const entry of entries) {
    if (entry.trim() === '') continue;
    const parts = splitEscaped(entry, ':', true);
    if (parts === undefined || parts.length > 3) {
      return cellError('invalid_option_choices', `"${entry.trim()}" has too many ":" parts: ${FORMAT_HINT}`);
    }
    const choiceText = (parts[0] as string).trim();
    if (choiceText === '') return cellError('invalid_option_choices', `a choice has no text: ${FORMAT_HINT}`);
    const choice: DesiredChoice = { text: choiceText };
    const price = parts[1]?.trim();
    if (price !== undefined && price !== '') {
      // Plain numbers only: a text part such as "30 slot" must not pass for a price.
      if (!PLAIN_AMOUNT.test(price)) {
        return cellError(
          'invalid_option_choices',
          `"${price}" is not a price of "${choiceText}": ${FORMAT_HINT}`,
        );
      }
      const r = parseMoney(price, options.decimals, moneyOpts);
      if (!r.ok) return cellError('invalid_option_choices', `price of "${choiceText}": ${r.message}`);
      if (r.value < 0)
        return cellError('invalid_option_choices', `price of "${choiceText}" must be 0 or more`);
      choice.price = r.value;
    }
    const quantity = parts[2]?.trim();
    if (quantity !== undefined && quantity !== '') {
      const r = parseIntegerCell(quantity, { min: 0 });
      if (!r.ok) return cellError('invalid_option_choices', `quantity of "${choiceText}": ${r.message}`);
      choice.quantity = r.value;
    }
    choices.push(choice);
  }
  return cellOk(choices);
}

function escapeChoiceText(text: string): string {
  return text.replace(/[\\|:]/g, (c) => `\\${c}`);
}

/** The inverse of parseOptionChoices (exports write this, so a re-import is unchanged). */
export function formatOptionChoices(
  choices: readonly { text: string; price?: number | undefined; quantity?: number | undefined }[],
  options: { decimals: number; money?: 'units' | 'minor' },
): string {
  return choices
    .map((c) => {
      let s = escapeChoiceText(c.text);
      const price =
        c.price === undefined
          ? ''
          : options.money === 'minor'
            ? String(c.price)
            : formatMoney(c.price, options.decimals);
      if (c.quantity !== undefined) s += `:${price}:${c.quantity}`;
      else if (c.price !== undefined) s += `:${price}`;
      return s;
    })
    .join('|');
}
