import type { Argv } from 'yargs';
import type { CommandContext, GlobalArgs } from '../command-context.js';
import { registerApply } from './apply.js';
import { registerExport } from './export.js';
import { registerImport } from './import.js';
import { registerMessages } from './messages.js';
import { registerRuns } from './runs.js';
import { registerSandbox } from './sandbox.js';
import { registerTemplates } from './templates.js';
import { registerWhoami } from './whoami.js';

/**
 * A command registers itself on the parser. Handlers import their library code lazily so that
 * `mbulk --help` stays instant, and report their exit code through `setExit`.
 */
export type RegisterCommand = (
  parser: Argv<GlobalArgs>,
  ctx: CommandContext,
  setExit: (code: number) => void,
) => Argv<GlobalArgs>;

// One line per command module; keep sorted.
export const commands: RegisterCommand[] = [
  registerApply,
  registerExport,
  registerImport,
  registerMessages,
  registerRuns,
  registerSandbox,
  registerTemplates,
  registerWhoami,
];
