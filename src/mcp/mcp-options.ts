/** How many products one products plan may hide and delete together (`mbulk mcp --max-hide`). */
export interface RemovalLimit {
  /** Share of the live catalog (0.1 = 10%); Infinity: no share limit. */
  fraction: number;
  /** Products; Infinity: no count limit. */
  count: number;
}

/** The CLI's limit, and `mbulk mcp`'s default: 10% of the live catalog and at most 50 products. */
export const DEFAULT_REMOVAL_LIMIT: RemovalLimit = { fraction: 0.1, count: 50 };

/** How the operator started `mbulk mcp`: what no tool call can change. */
export interface McpServerOptions {
  /** Register planning, showing, status and export tools only (no apply, resume or rollback). */
  readOnly: boolean;
  /** Let `apply_plan` write a products plan that deletes products (default: hide only). */
  allowDelete: boolean;
  /** The most entities one apply may write (default 500); only the operator's flag raises it. */
  maxChanges: number;
  /** The most products a plan may hide and delete (`--max-hide`, default 10% and 50). */
  maxHide: RemovalLimit;
  /** Where run directories go (default `.mbulk/runs` of the server's working directory). */
  runsRoot: string;
  /** Where `export` writes its files (default `.mbulk/exports`). */
  exportsDir: string;
  /**
   * The one directory `source.file` may read from (`--files-root`, default the server's working
   * directory): a path leaving it (`..`, absolute, or a symlink pointing out) is refused.
   */
  filesRoot: string;
}

/** `--max-changes` of `mbulk mcp` when the operator gives none. */
export const DEFAULT_MCP_MAX_CHANGES = 500;

/**
 * `--max-hide`: `20%` (a share of the live catalog, no count limit) or `200` (products, no share
 * limit). Undefined for anything else.
 */
export function parseMaxHide(text: string): RemovalLimit | undefined {
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(text.trim());
  if (percent) {
    const value = Number(percent[1]);
    return value <= 100 ? { fraction: value / 100, count: Number.POSITIVE_INFINITY } : undefined;
  }
  if (/^\d+$/.test(text.trim())) return { fraction: 1, count: Number(text.trim()) };
  return undefined;
}

/** The limit as the operator writes it: `10% and 50`, `20%`, `200`. */
export function maxHideText(limit: RemovalLimit): string {
  const share = limit.fraction < 1 ? `${Math.round(limit.fraction * 1000) / 10}%` : undefined;
  const count = Number.isFinite(limit.count) ? String(limit.count) : undefined;
  return [share, count].filter((t) => t !== undefined).join(' and ') || '100%';
}
