import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { FleetFileError, type FleetFileProblem } from './fleet-file-error.js';
import { isReservedOption, reservedOptionHint, type JobOptions } from './job-options.js';

/**
 * `mbulk fleet run STORES.yaml`: the job once, the stores it runs for.
 *
 * ```yaml
 * job: import stock            # import stock|products|customers
 * apply: true                  # optional: false or absent = plan only
 * options: { max-changes: 10% }   # the job's own CLI options, for every store
 * stores:
 *   - name: kl-central         # names the store's directory: letters, digits, . _ -
 *     base_url: https://api.example
 *     token_env: KL_TOKEN      # or token_file: /secrets/kl
 *     feed: https://erp.example/kl.csv   # a file (relative to this file) or a URL
 *     header_env: KL_FEED_AUTH # optional: a variable holding 'Name: value' for the feed
 *     options: { max-changes: 5% }       # optional: over the file's options for this store
 * ```
 *
 * The file is YAML 1.2 (the `yaml` package: `yes`/`no` are text, not booleans; a key given twice
 * is an error). Every problem names the file, its line, the store (index and name) and the field;
 * all of them are reported at once, before anything runs. Secrets never live in the file: it names
 * the environment variables or files that hold them, and no message quotes a value.
 */

/** The jobs a fleet runs: any import kind. */
export const FLEET_JOBS = ['import stock', 'import products', 'import customers'] as const;
export type FleetJob = (typeof FLEET_JOBS)[number];
/** `stock`, `products`, `customers`. */
export type FleetKind = FleetJob extends `import ${infer K}` ? K : never;

function kindOf(job: FleetJob): FleetKind {
  return job.slice('import '.length) as FleetKind;
}

/** One store of the file, resolved: paths absolute, options merged (the store's over the file's). */
export interface FleetStore {
  /** Position in `stores` (0-based, as `--only-index` and `$JOB_COMPLETION_INDEX` count). */
  index: number;
  name: string;
  baseUrl: string;
  /** Where its API token is: an environment variable, or a file (absolute path). */
  token: { env: string } | { file: string };
  /** An absolute file path or an http(s) URL. */
  feed: string;
  /** Environment variables each holding one feed header, `Name: value`. */
  headerEnv: string[];
  options: JobOptions;
}

export interface FleetFile {
  /** The file, absolute. */
  file: string;
  job: FleetJob;
  kind: FleetKind;
  /** `apply:` in the file (undefined when absent). */
  apply: boolean | undefined;
  stores: FleetStore[];
}

/** Checks a job's options against what its command accepts: one problem per bad option. */
export type CheckJobOptions = (
  kind: FleetKind,
  options: JobOptions,
) => readonly { option: string; message: string }[];

export interface ParseFleetOptions {
  /** How the file is named in messages (default: its base name). */
  shown?: string;
  /** Checks `options:` against the job's command (the CLI passes its own parser's check). */
  checkOptions?: CheckJobOptions;
}

/** Environment variable names: capitals, digits and `_` (a value pasted by mistake rarely fits). */
const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;
/** Store names become directory names. */
const STORE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const OPTION_NAME = /^[A-Za-z][A-Za-z0-9-]*$/;

/** A string field: "is missing" when absent, else `must be WHAT`. */
function text(what: string) {
  return z.string({ error: (issue) => (issue.input === undefined ? 'is missing' : `must be ${what}`) });
}

const envName = text('the name of an environment variable').regex(ENV_NAME, {
  error: 'must be the name of an environment variable in capitals, digits and _ (KL_TOKEN), not its value',
});

const optionValue = z.union(
  [z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number()]))],
  {
    error: 'must be text, a number, true/false, or a list of text or numbers',
  },
);

const optionsSchema = z.record(
  z.string().regex(OPTION_NAME, { error: 'is not an option name (like max-changes)' }),
  optionValue,
  { error: 'must be a mapping of option names to values, e.g. { max-changes: 10% }' },
);

const storeSchema = z
  .strictObject(
    {
      name: text('text').regex(STORE_NAME, {
        error: 'must be 1 to 64 letters, digits, ".", "_" or "-" (it names the store\'s directory)',
      }),
      base_url: text('a URL').refine(isApiUrl, {
        error: 'must be an http(s) URL without credentials (the token goes in token_env or token_file)',
      }),
      token_env: envName.optional(),
      token_file: text('a file path').min(1, { error: 'must be a file path' }).optional(),
      feed: text('a file path or an http(s) URL')
        .min(1, { error: 'must be a file path or an http(s) URL' })
        .refine((feed) => !/^https?:\/\/[^/?#]*@/i.test(feed), {
          error: 'must not carry credentials in the URL; put the header in header_env',
        }),
      header_env: z.union([envName, z.array(envName).min(1)]).optional(),
      options: optionsSchema.optional(),
    },
    { error: (issue) => (issue.input === undefined ? 'is missing' : 'must be a mapping of fields') },
  )
  .refine((s) => (s.token_env === undefined) !== (s.token_file === undefined), {
    error: 'give token_env or token_file (exactly one)',
  });

const fleetSchema = z.strictObject(
  {
    job: z.enum(FLEET_JOBS, { error: `must be one of: ${FLEET_JOBS.join(', ')}` }),
    apply: z.boolean({ error: 'must be true or false' }).optional(),
    options: optionsSchema.optional(),
    stores: z
      .array(storeSchema, { error: (issue) => (issue.input === undefined ? 'is missing' : 'must be a list') })
      .min(1, { error: 'must list at least one store' }),
  },
  { error: 'must be a mapping with job, stores and optionally apply and options' },
);

/** The parts of a file the cross-checks read, each undefined where it is malformed. */
const looseSchema = z
  .object({
    job: z.enum(FLEET_JOBS).optional().catch(undefined),
    options: optionsSchema.optional().catch(undefined),
    stores: z
      .array(
        z
          .object({
            name: z.string().regex(STORE_NAME).optional().catch(undefined),
            options: optionsSchema.optional().catch(undefined),
          })
          .catch({}),
      )
      .optional()
      .catch(undefined),
  })
  .catch({});

function isApiUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (
      (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === ''
    );
  } catch {
    return false;
  }
}

/** Reads and checks a fleet file; throws FleetFileError (exit 2) listing every problem. */
export function readFleetFile(path: string, options: ParseFleetOptions = {}): FleetFile {
  const file = resolve(path);
  const shown = options.shown ?? basename(file);
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new FleetFileError([{ file: shown, message: `cannot read it (${code})` }]);
  }
  return parseFleetFile(source, file, { ...options, shown });
}

/**
 * Parses the text of a fleet file found at `file` (relative paths in it are relative to its
 * directory); throws FleetFileError (exit 2) listing every problem.
 */
export function parseFleetFile(source: string, file: string, options: ParseFleetOptions = {}): FleetFile {
  const shown = options.shown ?? basename(file);
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new FleetFileError(
      doc.errors.map((e) => ({
        file: shown,
        line: lines.linePos(e.pos[0]).line,
        message: `not valid YAML: ${e.message.split('\n')[0] ?? e.message}`,
      })),
    );
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // An alias expanding past the limit (a "billion laughs" file).
    throw new FleetFileError([{ file: shown, message: `not valid YAML: ${(error as Error).message}` }]);
  }
  const problems: FleetFileProblem[] = [];
  const at = (path: readonly PropertyKey[], message: string): void => {
    problems.push(problemAt(doc, lines, shown, raw, path, message));
  };
  const parsed = fleetSchema.safeParse(raw ?? undefined);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        const fields = issue.path.length === 0 ? 'job, apply, options, stores' : STORE_FIELDS;
        for (const key of issue.keys) at([...issue.path, key], `is not a field here (fields: ${fields})`);
      } else at(issue.path, issue.message);
    }
  }
  // What the schema cannot see, checked on whatever parts of the file are well-formed (so one
  // pass reports everything): the options against the job's command, and duplicate names.
  const loose = looseSchema.parse(raw ?? {});
  const kind = loose.job === undefined ? undefined : kindOf(loose.job);
  const checkOptions = (path: readonly PropertyKey[], given: JobOptions | undefined): void => {
    if (given === undefined) return;
    for (const option of Object.keys(given)) {
      if (isReservedOption(option)) at([...path, option], reservedOptionHint(option));
    }
    const allowed = Object.fromEntries(Object.entries(given).filter(([o]) => !isReservedOption(o)));
    if (kind === undefined) return;
    for (const p of options.checkOptions?.(kind, allowed) ?? []) at([...path, p.option], p.message);
  };
  checkOptions(['options'], loose.options);
  const seen = new Map<string, number>();
  loose.stores?.forEach((store, index) => {
    const name = store.name?.toLowerCase();
    const first = name === undefined ? undefined : seen.get(name);
    if (first !== undefined) at(['stores', index, 'name'], `is also the name of stores[${first}]`);
    else if (name !== undefined) seen.set(name, index);
    checkOptions(['stores', index, 'options'], store.options);
  });
  if (problems.length > 0 || !parsed.success) {
    throw new FleetFileError([...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0)));
  }
  const fleet = parsed.data;

  const base = dirname(resolve(file));
  return {
    file: resolve(file),
    job: fleet.job,
    kind: kindOf(fleet.job),
    apply: fleet.apply,
    stores: fleet.stores.map((store, index) => ({
      index,
      name: store.name,
      baseUrl: store.base_url.replace(/\/+$/, ''),
      token:
        store.token_env !== undefined
          ? { env: store.token_env }
          : { file: resolve(base, store.token_file ?? '') },
      feed: /^https?:\/\//i.test(store.feed) ? store.feed : resolve(base, store.feed),
      headerEnv: store.header_env === undefined ? [] : [store.header_env].flat(),
      options: { ...fleet.options, ...store.options },
    })),
  };
}

const STORE_FIELDS = 'name, base_url, token_env, token_file, feed, header_env, options';

/**
 * A problem at a path of the file: its line (of the deepest node the path reaches), and the path
 * for people: `stores[3] (kl-central): options.max-changes`.
 */
function problemAt(
  doc: Document,
  lines: LineCounter,
  file: string,
  raw: unknown,
  path: readonly PropertyKey[],
  message: string,
): FleetFileProblem {
  const keys = path.filter((k): k is string | number => typeof k !== 'symbol');
  let line: number | undefined;
  for (let n = keys.length; n >= 0 && line === undefined; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(keys.slice(0, n), true);
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
    if (range !== undefined) line = lines.linePos(range[0]).line;
  }
  let store: FleetFileProblem['store'];
  let rest = keys;
  if (keys[0] === 'stores' && typeof keys[1] === 'number') {
    const entry = Array.isArray((raw as { stores?: unknown })?.stores)
      ? ((raw as { stores: unknown[] }).stores[keys[1]] as { name?: unknown } | undefined)
      : undefined;
    const name = typeof entry?.name === 'string' && STORE_NAME.test(entry.name) ? entry.name : undefined;
    store = { index: keys[1], ...(name !== undefined ? { name } : {}) };
    rest = keys.slice(2);
  }
  const field = rest
    .map((k) => (typeof k === 'number' ? `[${k}]` : k))
    .join('.')
    .replace(/\.\[/g, '[');
  return {
    file,
    ...(line !== undefined ? { line } : {}),
    ...(store !== undefined ? { store } : {}),
    ...(field !== '' ? { field } : {}),
    message,
  };
}
