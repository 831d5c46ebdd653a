import type { Argv } from 'yargs';
import type { GlobalArgs } from '../command-context.js';
import type { RegisterCommand } from './index.js';
import { notifyOptions, type NotifyArgs } from '../notify-options.js';
import { dryRunOption } from '../dry-run-option.js';
import { STRICT_CHECK_DESCRIBE } from './apply.js';
import { registerImportProducts } from './import-products.js';
import { registerImportStock } from './import-stock.js';
import { registerImportCustomers } from './import-customers.js';

/** Subcommands of `mbulk import`, one module each. */
const importCommands: RegisterCommand[] = [
  registerImportProducts,
  registerImportStock,
  registerImportCustomers,
];

export interface ImportArgs extends GlobalArgs, NotifyArgs {
  file: string;
  apply: boolean;
  /** Plan only (the default without --apply; with it, a usage error). */
  'dry-run'?: boolean | undefined;
  yes: boolean;
  sheet?: string | undefined;
  /** Plan a sheet with a header and no data rows (default: refused, "truncated file?"). */
  'allow-empty'?: boolean | undefined;
  'runs-dir'?: string | undefined;
  /** `Name: value` headers for a URL source (never printed or journaled). */
  header?: string[] | undefined;
  /** Environment variables each holding a header `Name: value` for a URL source (kept off the command line). */
  'header-env'?: string[] | undefined;
  /** Import a URL source even when it did not change since the last applied run. */
  force?: boolean | undefined;
  /** With a URL source: the largest body downloaded (`50MB`, `2GiB`; default 2 GiB). */
  'max-download'?: string | undefined;
  /** With a URL source: the deadline of the whole download (`30s`, `10m`; default 1 h). */
  'download-timeout'?: string | undefined;
  /** With a URL source: follow a redirect to another origin (never with the --header values). */
  'follow-redirects'?: boolean | undefined;
  /** Re-read every product/customer before writing it (default: only when the plan is > 5 s old). */
  'strict-check'?: boolean | undefined;
  /** Stock: apply a delta sheet already applied to this store once more. */
  again?: boolean | undefined;
}

/** `mbulk import products|customers|stock FILE`. */
export const registerImport: RegisterCommand = (parser, ctx, setExit) =>
  parser.command('import', 'Import a sheet: plan (dry run), then --apply', (y) => {
    let sub = (y as unknown as Argv<GlobalArgs>)
      // The options every kind of import takes, defined once.
      .option('apply', {
        type: 'boolean',
        default: false,
        describe: 'Write the planned changes (default: dry run)',
      })
      .option('yes', {
        type: 'boolean',
        default: false,
        describe: 'Do not ask for confirmation before writing',
      })
      .option('sheet', {
        type: 'string',
        describe: 'XLSX: the sheet to read (default: the first)',
      })
      .option('allow-empty', {
        type: 'boolean',
        default: false,
        describe:
          'Plan a sheet that has a header and no data rows (default: refused, exit 3, "truncated file?")',
      })
      .option('runs-dir', {
        type: 'string',
        describe: 'Where run directories go (default: .mbulk/runs)',
      })
      .option('header', {
        type: 'string',
        array: true,
        describe:
          "With a URL source: a request header 'Name: value' (e.g. 'Authorization: Bearer …'); repeatable; never printed or journaled",
      })
      .option('max-download', {
        type: 'string',
        describe:
          'With a URL source: stop (exit 2) when the feed is larger than SIZE, e.g. 50MB, 2GiB (default: 2GiB)',
      })
      .option('download-timeout', {
        type: 'string',
        describe:
          'With a URL source: stop (exit 2) when the download takes longer than this, e.g. 30s, 10m (default: 1h); a server silent for this long (at most 1 min) stops it too',
      })
      .option('follow-redirects', {
        type: 'boolean',
        default: false,
        describe:
          'With a URL source: follow a redirect to another origin (never from https:// down to http://; the --header values are never sent there)',
      })
      .option('header-env', {
        type: 'string',
        array: true,
        describe:
          "With a URL source: a request header 'Name: value' read from this environment variable, kept off the command line (where ps shows it to every user of the machine); repeatable",
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe:
          'With a URL source: import it even if unchanged (same ETag, Last-Modified or bytes) since the last applied run',
      })
      .option('strict-check', {
        type: 'boolean',
        default: false,
        describe: STRICT_CHECK_DESCRIBE,
      }) as unknown as Argv<GlobalArgs>;
    sub = notifyOptions(dryRunOption(sub));
    for (const register of importCommands) sub = register(sub, ctx, setExit);
    return sub.demandCommand(1, 'Name what to import: products, customers or stock.');
  });
