/**
 * A fleet's `options:`: the job's own command-line options (`max-changes: 10%`), given to each
 * store's `mbulk import KIND` as `--max-changes=10%`. The options the fleet sets itself for every
 * store are refused in the file, each with where to say it instead.
 */
export type JobOptionValue = string | number | boolean | (string | number)[];
export type JobOptions = Record<string, JobOptionValue>;

const RESERVED: Readonly<Record<string, string>> = {
  apply: 'write "apply: true" at the top of the file, or run mbulk fleet run --apply --yes',
  yes: 'write "apply: true" at the top of the file, or run mbulk fleet run --apply --yes',
  json: "is set by the fleet: it reads each store's --json result",
  'runs-dir':
    "is set by the fleet: each store's runs go to FLEET-DIR/stores/NAME/runs (mbulk fleet run --fleet-dir)",
  'base-url': "is the store's base_url",
  token: "give the store's token_env or token_file",
  'token-file': "give the store's token_env or token_file",
  header: "give the store's header_env (the header's value stays in the environment)",
  'header-env': "give the store's header_env",
  'notify-url': 'the fleet sends one notification for all stores: mbulk fleet run --notify-url',
  'notify-on': 'the fleet sends one notification for all stores: mbulk fleet run --notify-on',
  'sandbox-data': "a fleet writes to the stores' APIs: give each store's base_url",
  help: 'is not an option of a run',
  version: 'is not an option of a run',
};

/** `maxChanges` → `max-changes` (yargs accepts both spellings). */
function kebab(option: string): string {
  return option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Whether the fleet sets this option itself (it is refused in the file). */
export function isReservedOption(option: string): boolean {
  return Object.hasOwn(RESERVED, kebab(option));
}

/** Why a reserved option is refused, and where to say it instead. */
export function reservedOptionHint(option: string): string {
  const hint = RESERVED[kebab(option)] ?? '';
  return hint.startsWith('is ') ? hint : `is set by the fleet: ${hint}`;
}

/**
 * The command-line flags of options: `--name=value` (so a value starting with `-` stays a value),
 * `--name` / `--no-name` for true / false, a list as the flag repeated.
 */
export function optionFlags(options: JobOptions): string[] {
  const flags: string[] = [];
  for (const [name, value] of Object.entries(options)) {
    if (value === true) flags.push(`--${name}`);
    else if (value === false) flags.push(`--no-${name}`);
    else for (const v of Array.isArray(value) ? value : [value]) flags.push(`--${name}=${String(v)}`);
  }
  return flags;
}
