import type { ReviewRefusal } from './review-page.js';

/**
 * A refusal recorded when the run was planned (the deletes guardrail, `--max-changes`…): `mbulk
 * apply RUN` refuses it too (exit 3), so the way out is to fix the sheet or plan it again with the
 * flag the message names.
 */
export function plannedRefusal(refusal: string): ReviewRefusal {
  const message = refusal.replace(/^refused:\s*/i, '');
  const flag = /--[a-z][a-z-]+/.exec(message)?.[0];
  const again =
    flag === undefined
      ? 'fix the sheet and plan it again'
      : flag === '--max-changes'
        ? 'check the sheet, or plan it again with a higher --max-changes'
        : `check the sheet, or plan it again with ${flag}`;
  return { message, fix: `mbulk apply refuses this plan (exit 3): ${again}.` };
}

/** The price jumps refusal: `mbulk apply RUN` refuses it (exit 3) unless `--allow-price-jumps`. */
export function priceJumpsRefusal(count: number, applyCommand: string): ReviewRefusal {
  const s = count === 1 ? '' : 's';
  return {
    message: `${count} suspicious price change${s} (×10 or more of the live price, or over 10× the catalog's median price; a forgotten decimal point?): marked "refused" below.`,
    fix: `${applyCommand} refuses this plan (exit 3): fix the sheet and plan it again, or, if the prices are right, apply with --allow-price-jumps.`,
  };
}
