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
