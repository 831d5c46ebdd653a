import type { Argv } from 'yargs';

/** The heading of the options every command takes (main.ts), shown last in a command's help. */
export const GLOBAL_GROUP = 'Global options:';

/** One heading of a command's `--help` and the options under it, in the order shown. */
export type HelpGroup = readonly [heading: string, keys: readonly string[]];

/**
 * Groups a command's options in its `--help`: the given groups in order (the essentials first),
 * then the global options with --help and --version. yargs shows groups in the order they are
 * first named in the command's builder and puts the parent's groups (the global options) after
 * them; naming the global group again here keeps it last, after every group of this command.
 * An option named in no group would fall into a trailing "Options:" heading: the help test checks
 * that none does.
 */
export function helpGroups<T>(y: Argv<T>, groups: readonly HelpGroup[]): Argv<T> {
  let out = y;
  for (const [heading, keys] of groups) if (keys.length > 0) out = out.group([...keys], heading);
  return out.group(['help', 'version'], GLOBAL_GROUP);
}
