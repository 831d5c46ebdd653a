import { relative } from 'node:path';
import type { CommandContext } from './command-context.js';

/** A path as the console shows it: relative to the working directory when inside it, else absolute. */
export function shownPath(path: string, ctx: Pick<CommandContext, 'cwd'>): string {
  const rel = relative(ctx.cwd, path);
  return rel === '' || rel.startsWith('..') ? path : rel;
}
