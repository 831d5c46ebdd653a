import type { Argv } from 'yargs';
import type { CommandContext, GlobalArgs } from '../command-context.js';

/**
 * A command registers itself on the parser. Handlers import their library code lazily so that
 * `mbulk --help` stays instant, and report their exit code through `setExit`.
 */
export type RegisterCommand = (
  parser: Argv<GlobalArgs>,
  ctx: CommandContext,
  setExit: (code: number) => void,
) => Argv<GlobalArgs>;

/** A top-level command: its name, and how to load the module that registers it. */
export interface CommandModule {
  name: string;
  load(): Promise<RegisterCommand>;
}

// One line per command module; keep sorted. Each loads on demand: a command's module (and what it
// imports) costs start-up time only when that command is named.
export const commands: CommandModule[] = [
  { name: 'apply', load: async () => (await import('./apply.js')).registerApply },
  { name: 'export', load: async () => (await import('./export.js')).registerExport },
  { name: 'fleet', load: async () => (await import('./fleet.js')).registerFleet },
  { name: 'import', load: async () => (await import('./import.js')).registerImport },
  { name: 'mcp', load: async () => (await import('./mcp.js')).registerMcp },
  { name: 'messages', load: async () => (await import('./messages.js')).registerMessages },
  { name: 'runs', load: async () => (await import('./runs.js')).registerRuns },
  { name: 'sandbox', load: async () => (await import('./sandbox.js')).registerSandbox },
  { name: 'templates', load: async () => (await import('./templates.js')).registerTemplates },
  { name: 'whoami', load: async () => (await import('./whoami.js')).registerWhoami },
];

/**
 * The command modules to load for `argv`: those of the commands named in it, or all of them when
 * none is (`mbulk --help`, a typo, no command: the parser then lists or suggests every command).
 */
export function commandsFor(argv: readonly string[]): CommandModule[] {
  const named = commands.filter((c) => argv.includes(c.name));
  return named.length > 0 ? named : commands;
}
