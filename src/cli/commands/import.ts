import type { Argv } from 'yargs';
import type { GlobalArgs } from '../command-context.js';
import type { RegisterCommand } from './index.js';
import { registerImportProducts } from './import-products.js';
import { registerImportStock } from './import-stock.js';
import { registerImportCustomers } from './import-customers.js';

/** Subcommands of `mbulk import`, one module each. */
const importCommands: RegisterCommand[] = [
  registerImportProducts,
  registerImportStock,
  registerImportCustomers,
];

/** Options every import takes (plan by default, write only with --apply). */
export function importOptions<T>(y: Argv<T>) {
  return y
    .option('apply', {
      type: 'boolean',
      default: false,
      describe: 'Write the planned changes (default: dry run, plan only)',
    })
    .option('yes', {
      type: 'boolean',
      default: false,
      describe: 'Do not ask for confirmation before writing',
    })
    .option('sheet', { type: 'string', describe: 'XLSX: the sheet to read (default: the first)' })
    .option('runs-dir', { type: 'string', describe: 'Where run directories go (default: .mbulk/runs)' });
}

export interface ImportArgs extends GlobalArgs {
  file: string;
  apply: boolean;
  yes: boolean;
  sheet?: string | undefined;
  'runs-dir'?: string | undefined;
}

/** `mbulk import products|customers|stock FILE`. */
export const registerImport: RegisterCommand = (parser, ctx, setExit) =>
  parser.command('import', 'Import a sheet: plan (dry run), then --apply', (y) => {
    let sub = y as unknown as Argv<GlobalArgs>;
    for (const register of importCommands) sub = register(sub, ctx, setExit);
    return sub.demandCommand(1, 'Name what to import: products, customers or stock.');
  });
