/**
 * The options that shaped a run's plan, in the command line's words (run.json's `plan_flags`),
 * worked out from the options the kind recorded (run.json's `options`), so that a run planned
 * through the library or the MCP server records them as a run planned by the CLI does: an
 * `import … --apply` that would continue it with other options is refused (exit 3), whichever
 * surface planned it. The CLI then records its own, every option by name as parsed.
 *
 * Only the options whose value the CLI parses to the same thing are here (a value the command line
 * spells another way, like a column map given as `--map` or `--map-file`, is left out: an option a
 * run did not record is not compared). Each value is the CLI's default when the kind recorded none.
 */
type FlagOf = (options: Readonly<Record<string, unknown>>) => unknown;

const given =
  (name: string, fallback: unknown = null): FlagOf =>
  (o) =>
    o[name] ?? fallback;

/** Per kind: the CLI option's name, and its value from run.json's options. */
const FLAGS: Readonly<Record<string, Readonly<Record<string, FlagOf>>>> = {
  stock: { 'preserve-sales': given('preserveSales', false) },
  customers: { blank: given('blank', 'keep'), 'phone-from': given('phoneFrom', 'own') },
  templates: { 'skip-invalid': given('skipInvalid', false) },
  messages: {
    'allow-duplicates': given('allowDuplicates', false),
    resend: given('resend', false),
    'skip-invalid': given('skipInvalid', false),
    max: given('max'),
  },
  products: {
    from: given('from'),
    location: given('location'),
    money: given('money', 'units'),
    'decimal-comma': given('decimalComma', false),
    blank: given('blank', 'keep'),
    images: given('images'),
    'default-category': given('defaultCategory'),
    category: (o) => o['noCategory'] !== true,
    missing: given('missing', 'ignore'),
    stock: given('stock', 'protect'),
  },
};

/** run.json's `plan_flags` of a run of `kind` planned with `options` (none for a kind without). */
export function runPlanFlags(
  kind: string,
  options: Readonly<Record<string, unknown>>,
): Record<string, unknown> | undefined {
  const flags = FLAGS[kind];
  if (flags === undefined) return undefined;
  const out: Record<string, unknown> = {};
  for (const [name, of] of Object.entries(flags)) out[name] = of(options);
  // A products run that keeps the later duplicate SKUs: only then (the CLI's "refuse" is the default).
  if (kind === 'products' && options['duplicateSku'] === 'first') out['duplicate-sku'] = 'first';
  return out;
}
