import type { ProductPlan } from './product-plan.js';

export interface GuardrailOptions {
  /** Let the plan hide/delete any number of products (`--allow-deletes`). Default false. */
  allowDeletes?: boolean;
  /** Refuse above this share of the live catalog (default 0.1 = 10%; Infinity: no share limit). */
  maxFraction?: number;
  /** Refuse above this many products (default 50; Infinity: no count limit). */
  maxCount?: number;
}

export type GuardrailResult =
  | { ok: true; hide: number; delete: number }
  | {
      ok: false;
      code: 'too_many_removals';
      hide: number;
      delete: number;
      liveCount: number;
      /** The largest count that would have passed. */
      limit: number;
      message: string;
    };

/**
 * Refuses plans that would hide or delete more than 10% of the live catalog or more than 50
 * products (both configurable), unless `allowDeletes`. Hides count with deletes: both take
 * products off the storefront. The CLI maps a refusal to exit code 3.
 */
export function checkGuardrail(
  plan: Pick<ProductPlan, 'entries'>,
  liveCount: number,
  options: GuardrailOptions = {},
): GuardrailResult {
  let hide = 0;
  let del = 0;
  for (const e of plan.entries) {
    if (e.action === 'hide') hide++;
    else if (e.action === 'delete') del++;
  }
  if (options.allowDeletes === true) return { ok: true, hide, delete: del };
  const maxFraction = options.maxFraction ?? 0.1;
  const maxCount = options.maxCount ?? 50;
  const limit = Math.min(maxCount, Math.floor(liveCount * maxFraction));
  const total = hide + del;
  if (total === 0 || total <= limit) return { ok: true, hide, delete: del };
  return {
    ok: false,
    code: 'too_many_removals',
    hide,
    delete: del,
    liveCount,
    limit,
    message: `refused: the plan would hide ${hide} and delete ${del} of ${liveCount} live products (more than ${limitText(maxFraction, maxCount)}); check the sheet, or pass --allow-deletes`,
  };
}

/** `10% of the catalog or more than 50`, leaving out a limit that is off (Infinity). */
function limitText(maxFraction: number, maxCount: number): string {
  const share = Number.isFinite(maxFraction) ? `${Math.round(maxFraction * 100)}% of the catalog` : undefined;
  const count = Number.isFinite(maxCount) ? `${maxCount}` : undefined;
  return [share, count].filter((t) => t !== undefined).join(' or more than ');
}
