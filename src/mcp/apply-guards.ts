import { maxHideText, type McpServerOptions, type RemovalLimit } from './mcp-options.js';
import type { PlanView } from './plan-view.js';
import { inToolTerms } from './tool-terms.js';

/** What an assistant may allow in `apply_plan` (each only with a `reason` that names it). */
export type AllowFlag = 'price_jumps' | 'deletes';

/** A guard a plan trips: why applying it is refused, and what (if anything) lifts the refusal. */
export interface TrippedGuard {
  guard:
    | 'plan-refused'
    | 'max-changes'
    | 'removals'
    | 'deletes'
    | 'price-jumps'
    | 'stock-unknown'
    | 'no-category'
    | 'invalid-rows';
  message: string;
  /** The `allow` flag of `apply_plan` that lifts it (with a reason naming it); null when none does. */
  allow: AllowFlag | null;
  /**
   * The flag the server's operator starts `mbulk mcp` with to lift it (`--max-hide`; the message
   * gives it with its value); null when none does.
   */
  operatorFlag: string | null;
}

/** The most products a plan of `liveCount` live products may hide and delete under `limit`. */
export function removalLimitOf(limit: RemovalLimit, liveCount: number): number {
  return Math.min(limit.count, Math.floor(liveCount * limit.fraction));
}

/** The `--max-hide` that lets `removals` of `liveCount` products through: a share, rounded up. */
function maxHideFor(removals: number, liveCount: number): string {
  return liveCount <= 0 ? `${removals}` : `${Math.min(100, Math.ceil((removals / liveCount) * 100))}%`;
}

/** The guards a plan trips on this server, in the order they are checked. */
export function trippedGuards(
  view: PlanView,
  options: Pick<McpServerOptions, 'maxChanges' | 'allowDelete'> & Partial<Pick<McpServerOptions, 'maxHide'>>,
): TrippedGuard[] {
  const tripped: TrippedGuard[] = [];
  if (view.writes > options.maxChanges)
    tripped.push({
      guard: 'max-changes',
      message: `the plan writes ${view.writes} entities, more than this server's limit of ${options.maxChanges} per apply; only the server's operator can raise it, by starting the server with: mbulk mcp --max-changes ${view.writes}`,
      allow: null,
      operatorFlag: '--max-changes',
    });
  const removals = view.hides + view.deletes;
  let removalsTripped = false;
  if (view.kind === 'products' && view.liveCount !== null && removals > 0 && options.maxHide !== undefined) {
    const limit = removalLimitOf(options.maxHide, view.liveCount);
    if (removals > limit) {
      removalsTripped = true;
      const flag = `--max-hide ${maxHideFor(removals, view.liveCount)}`;
      tripped.push({
        guard: 'removals',
        message: `the plan hides ${view.hides} and deletes ${view.deletes} of ${view.liveCount} live products, more than this server allows (${maxHideText(options.maxHide)}: at most ${limit}); check the sheet and the missing argument, or have the server's operator start it with: mbulk mcp ${flag} (then plan again)`,
        allow: null,
        operatorFlag: '--max-hide',
      });
    }
  }
  if (view.deletes > 0)
    tripped.push(
      options.allowDelete
        ? {
            guard: 'deletes',
            message: `the plan deletes ${view.deletes} product${view.deletes === 1 ? '' : 's'}; apply it only with allow.deletes and a reason that names deletes`,
            allow: 'deletes',
            operatorFlag: null,
          }
        : {
            guard: 'deletes',
            message: `the plan deletes ${view.deletes} product${view.deletes === 1 ? '' : 's'}, and this server never deletes products (hide them instead: missing "hide"); only the server's operator can allow deletes, by starting the server with: mbulk mcp --allow-delete`,
            allow: null,
            operatorFlag: '--allow-delete',
          },
    );
  if (view.priceJumps.length > 0)
    tripped.push({
      guard: 'price-jumps',
      message: `${view.priceJumps.length} price change${view.priceJumps.length === 1 ? ' is' : 's are'} ×10 or more of the live price (or over 10× the catalog's median): ${view.priceJumps
        .slice(0, 3)
        .map((j) => j.message)
        .join(
          '; ',
        )}${view.priceJumps.length > 3 ? '; …' : ''}; apply only with allow.price_jumps and a reason that names price_jumps`,
      allow: 'price_jumps',
      operatorFlag: null,
    });
  if (view.stockUnknown !== null)
    tripped.push({
      guard: 'stock-unknown',
      message: `${inToolTerms(view.stockUnknown)}; plan the sheet again (plan_import) with stock_unknown: "untracked", "zero" or "keep" (every product), or a list of "KEY=MODE" (one product each, as the plan names it) and at most one mode for the others`,
      allow: null,
      operatorFlag: null,
    });
  if (view.noCategory !== null)
    tripped.push({
      guard: 'no-category',
      message: `${inToolTerms(view.noCategory)}; plan the sheet again (plan_import) with one of them`,
      allow: null,
      operatorFlag: null,
    });
  // Last: a planner's own refusal. A products plan's is its hides and deletes, said above when this
  // server's limit refuses them too; one made under a lower limit is planned again.
  if (view.refusal !== null && !removalsTripped)
    tripped.push({
      guard: 'plan-refused',
      message:
        view.kind === 'products' && removals > 0
          ? `the plan was refused when it was made (${inToolTerms(view.refusal)}); plan the sheet again (plan_import): this server's limit now lets it through`
          : inToolTerms(view.refusal),
      allow: null,
      operatorFlag: null,
    });
  return tripped;
}

/** What `apply_plan` (or `resume_run`) asks to lift, and why. */
export interface ApplyRequest {
  allow?: { [F in AllowFlag]?: boolean | undefined } | undefined;
  reason?: string | undefined;
}

/** Why `apply_plan` writes nothing. */
export interface ApplyRefusal {
  refused: string;
  message: string;
  allow: AllowFlag | null;
  operatorFlag: string | null;
}

/**
 * The guards an apply must pass: every tripped guard lifted by its allow flag, passed explicitly
 * and named in the reason (an allow flag with no reason naming it is itself refused). Returns the
 * first refusal, or undefined when the plan may be applied.
 */
export function checkApplyGuards(
  tripped: readonly TrippedGuard[],
  request: ApplyRequest,
): ApplyRefusal | undefined {
  const reason = request.reason ?? '';
  for (const flag of ['price_jumps', 'deletes'] as const) {
    if (request.allow?.[flag] === true && !reason.includes(flag))
      return {
        refused: 'reason-missing',
        message: `allow.${flag} needs a reason that names ${flag} (why this plan should be written anyway)`,
        allow: flag,
        operatorFlag: null,
      };
  }
  for (const t of tripped) {
    if (t.allow !== null && request.allow?.[t.allow] === true) continue;
    return { refused: t.guard, message: t.message, allow: t.allow, operatorFlag: t.operatorFlag };
  }
  return undefined;
}
