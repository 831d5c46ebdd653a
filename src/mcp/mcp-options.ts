/** How the operator started `mbulk mcp`: what no tool call can change. */
export interface McpServerOptions {
  /** Register planning, showing, status and export tools only (no apply, resume or rollback). */
  readOnly: boolean;
  /** Let `apply_plan` write a products plan that deletes products (default: hide only). */
  allowDelete: boolean;
  /** The most entities one apply may write (default 500); only the operator's flag raises it. */
  maxChanges: number;
  /** Where run directories go (default `.mbulk/runs` of the server's working directory). */
  runsRoot: string;
  /** Where `export` writes its files (default `.mbulk/exports`). */
  exportsDir: string;
}

/** `--max-changes` of `mbulk mcp` when the operator gives none. */
export const DEFAULT_MCP_MAX_CHANGES = 500;
