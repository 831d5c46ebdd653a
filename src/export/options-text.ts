import { formatMoney } from '../sheets/money.js';

/** The parts of a line option or an order answer that the text needs. */
export interface OptionLike {
  question_text: string;
  answers: readonly string[];
  prices: readonly number[];
  quantities?: readonly number[];
  text?: string;
}

/**
 * Flattens line options (or order answers) into one readable cell:
 * `Size: Large (+2.00); Toppings: Cheese ×2 (+1.00), Bacon; Note: no onions`.
 * Questions are joined with `; `, answers with `, `. A price is shown in currency units with a sign
 * when it is not zero; a quantity only when above 1. A question with no answers shows its free
 * `text`; one with neither is left out.
 */
export function optionsText(options: readonly OptionLike[], currencyDecimals: number): string {
  const parts: string[] = [];
  for (const option of options) {
    const answers: string[] = [];
    option.answers.forEach((answer, i) => {
      let s = answer;
      const quantity = option.quantities?.[i];
      if (quantity !== undefined && quantity > 1) s += ` ×${quantity}`;
      const price = option.prices[i];
      if (price !== undefined && price !== 0) {
        s += ` (${price > 0 ? '+' : ''}${Number.isSafeInteger(price) ? formatMoney(price, currencyDecimals) : String(price)})`;
      }
      answers.push(s);
    });
    const value = answers.length > 0 ? answers.join(', ') : (option.text ?? '');
    if (value === '') continue;
    parts.push(option.question_text === '' ? value : `${option.question_text}: ${value}`);
  }
  return parts.join('; ');
}
