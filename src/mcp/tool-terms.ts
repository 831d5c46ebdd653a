/**
 * The library's messages name the CLI's commands and flags (`run with --decimal-comma`, `mbulk runs
 * resume RUN`). An assistant cannot run either: each is said here as the tool argument that does
 * the same (`decimal_comma: true`, `resume_run`), or as the server flag only the operator can pass
 * (`mbulk mcp --allow-delete`). Applied to every message a tool returns (refusals, errors, row
 * issues, planner refusals). One table for every tool: the terms every tool shares (TERMS), and
 * before them a tool's own (the `export` tool's arguments, by the CLI option each one is).
 */
type Term = readonly [RegExp, string | ((...groups: string[]) => string)];

/** The `export` tool's arguments, by the CLI's export option each one is (`--tax-type`). */
const EXPORT_ARGUMENTS: Readonly<Record<string, string>> = {
  status: 'status',
  'payment-status': 'payment_status',
  'fulfillment-status': 'fulfillment_status',
  revenue: 'revenue',
  since: 'since',
  until: 'until',
  'updated-since': 'updated_since',
  headers: 'headers',
  'csv-delimiter': 'csv_delimiter',
  'decimal-comma': 'decimal_comma',
  basis: 'basis',
  profile: 'accounting.profile',
  'date-format': 'accounting.date_format',
  'account-code': 'accounting.account_code',
  'tax-type': 'accounting.tax_type',
  'zero-tax-type': 'accounting.zero_tax_type',
  'invoice-prefix': 'accounting.invoice_prefix',
  accounts: 'accounting.accounts',
  'invoice-date': 'accounting.invoice_date',
  contact: 'accounting.contact',
  payments: 'accounting.payments',
  'due-days': 'accounting.due_days',
  'journal-period': 'accounting.journal_period',
  incremental: 'incremental',
  feed: 'incremental.feed',
  full: 'incremental.full',
  'dry-run': 'incremental.dry_run',
  'overlap-minutes': 'incremental.overlap_minutes',
  money: 'money',
};

/** A tool whose arguments have terms of their own. */
export type TermsOf = 'export';

/** Each tool's own terms, said before the shared ones. */
const TOOL_TERMS: Readonly<Record<TermsOf, readonly Term[]>> = {
  export: [
    [/--([a-z][a-z-]*)/g, (all, flag) => EXPORT_ARGUMENTS[flag ?? ''] ?? all],
    [/\bmbulk export (\w+)/g, (_m, kind) => `export ${kind}`],
  ],
};

const TERMS: readonly Term[] = [
  // Commands first (they carry flags of their own).
  [
    /\bmbulk runs resume (\S+?)(?: --reconcile)\b/g,
    (_m, run) => `resume_run with run_id ${run} and reconcile: true`,
  ],
  [/\bmbulk runs resume (\S+?)(?=[\s.,;:)]|$)/g, (_m, run) => `resume_run with run_id ${run}`],
  [
    /\bmbulk apply (\S+?) --replan\b/g,
    'plan_import again with the same source (the store changed), then apply_plan with the new plan_hash',
  ],
  [
    /\bmbulk apply (\S+?)(?: --allow-price-jumps)?(?=[\s.,;:)]|$)/g,
    (_m, run) => `apply_plan with run_id ${run} and its plan_hash`,
  ],
  [
    /\bmbulk runs rollback (\S+?)( --delete-created)?(?: --apply)?(?=[\s.,;:)]|$)/g,
    (_m, run, deleteCreated) =>
      `rollback_run with run_id ${run}${deleteCreated ? ' and delete_created: true' : ''}, then apply_plan with its plan_hash`,
  ],
  [/\bmbulk runs show (\S+?)(?=[\s.,;:)]|$)/g, (_m, run) => `run_status with run_id ${run}`],
  [/\bmbulk import\s(products|stock|customers)(?: \S+)?/g, (_m, kind) => `plan_import with kind "${kind}"`],
  [/\bplan with --skip-invalid\b/g, 'plan again with skip_invalid: true'],
  [/--skip-invalid\b/g, 'skip_invalid: true'],
  [/--allow-duplicates\b/g, 'allow_duplicates: true'],
  [/--resend\b/g, 'resend: true'],
  [
    / \(follow its review with mbulk templates status --watch[^)]*\)/g,
    ' (its review happens outside the store)',
  ],
  [/\(see mbulk templates status\)/g, '(only an APPROVED template can be sent)'],
  // Flags with a tool argument.
  [/\bpass --allow-price-jumps\b/g, 'pass allow.price_jumps with a reason that names price_jumps'],
  [/\(--allow-price-jumps\)/g, '(allow.price_jumps)'],
  [/--allow-price-jumps\b/g, 'allow.price_jumps'],
  [/\brun with --decimal-comma\b/g, 'plan with decimal_comma: true'],
  [/--decimal-comma\b/g, 'decimal_comma: true'],
  [/--money minor\b/g, 'money: "minor"'],
  [
    /--category-map FILE \(source category \u2192 store category id\)/g,
    'category_map (source category → store category ids)',
  ],
  [/--category-map( FILE)?/g, 'category_map'],
  [/--default-category( ID)?/g, 'default_category'],
  [/--no-category\b/g, 'no_category: true'],
  [/--location NAME takes one location's\b/g, "location takes one location's"],
  [/--location( NAME)?/g, 'location'],
  [/--stock-unknown KEY=MODE\b/g, 'stock_unknown: ["KEY=MODE"]'],
  [/--stock-unknown (untracked|zero|keep)\b/g, (_m, mode) => `stock_unknown: "${mode}"`],
  [/--stock-unknown\b/g, 'stock_unknown'],
  [/--missing (hide|delete|ignore)\b/g, (_m, mode) => `missing: "${mode}"`],
  [/--missing\b/g, 'missing'],
  [/--preserve-sales\b/g, 'preserve_sales: true'],
  [/--delete-created\b/g, 'delete_created: true'],
  [/--reconcile\b/g, 'reconcile: true'],
  [/--again applies it once more\b/g, 'plan_import with again: true plans it to apply once more'],
  [/--again\b/g, 'again: true'],
  [/--allow-empty\b/g, 'allow_empty: true'],
  [/--header-row\b/g, 'header_row'],
  [/--sheet\b/g, 'sheet'],
  [/--force\b/g, 'force: true'],
  [/--replan\b/g, 'plan_import again'],
  [/(?<![\w-])--apply\b/g, 'apply_plan'],
  // Flags only the server's operator has.
  [
    /\bor pass --allow-deletes\b/g,
    "or have the server's operator raise the limit (mbulk mcp --max-hide), then plan again",
  ],
  [/(?<!mbulk mcp )--allow-deletes?\b/g, 'mbulk mcp --allow-delete (the server operator’s flag)'],
  [/(?<!mbulk mcp )--max-changes\b/g, 'mbulk mcp --max-changes (the server operator’s flag)'],
  [
    /\bset --base-url \(or MERCHANT_API_URL\) to (\S+)/g,
    (_m, url) => `the server's operator starts it against ${url}`,
  ],
];

/**
 * A library message in the tool's own terms (see TERMS): `tool`'s own first (`export`: `--tax-type`
 * is `accounting.tax_type`), then those of every tool.
 */
export function inToolTerms(message: string, tool?: TermsOf): string {
  let text = message;
  for (const [pattern, replacement] of [...(tool === undefined ? [] : TOOL_TERMS[tool]), ...TERMS])
    text =
      typeof replacement === 'string'
        ? text.replace(pattern, replacement)
        : text.replace(pattern, (...args: unknown[]) =>
            replacement(...args.slice(0, -2).map((a) => (typeof a === 'string' ? a : ''))),
          );
  return text;
}
