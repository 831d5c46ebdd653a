import type { Argv } from 'yargs';
import { helpGroups, type HelpGroup } from '../help-groups.js';

/** A kind of import's own options, by help group (the shared options have their place). */
export interface ImportHelp {
  essentials?: readonly string[];
  safety: readonly string[];
  format: readonly string[];
  output?: readonly string[];
  /** Groups of the kind's own, shown after the format group. */
  more?: readonly HelpGroup[];
}

/**
 * Groups an import's `--help` (issue 25: the essentials first): Essentials, Safety, Format /
 * mapping, the kind's own groups, URL source, Output, then the global options.
 */
export function importHelpGroups<T>(y: Argv<T>, own: ImportHelp): Argv<T> {
  return helpGroups(y, [
    ['Essentials:', ['apply', 'yes', 'dry-run', 'sheet', ...(own.essentials ?? [])]],
    ['Safety:', [...own.safety, 'allow-empty', 'strict-check']],
    ['Format / mapping:', own.format],
    ...(own.more ?? []),
    [
      'URL source:',
      ['header', 'header-env', 'max-download', 'download-timeout', 'follow-redirects', 'force'],
    ],
    ['Output:', ['runs-dir', ...(own.output ?? []), 'notify-url', 'notify-on']],
  ]);
}
