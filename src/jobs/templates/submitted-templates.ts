import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../files/atomic-file.js';

// ---------------------------------------------------------------------------------------------
// Submitted categories: the reviewer may re-categorise a template, and the API does not say what
// was submitted, so the categories sent are remembered per store.

const SubmittedTemplates = z.record(
  z.string(),
  z.object({
    category: z.string(),
    submitted_at: z.string(),
    run_id: z.string().optional(),
    id: z.string().optional(),
  }),
);
export type SubmittedTemplates = z.infer<typeof SubmittedTemplates>;

/** `<stateDir>/stores/<store-id>/templates.json`. */
export function submittedTemplatesPath(stateDir: string, storeId: string): string {
  return join(stateDir, 'stores', storeId.replace(/[^A-Za-z0-9_.-]/g, '_'), 'templates.json');
}

/** The categories submitted from this machine, by template name ({} when none or unreadable). */
export function readSubmittedTemplates(file: string): SubmittedTemplates {
  if (!existsSync(file)) return {};
  try {
    const parsed = SubmittedTemplates.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

export function rememberSubmitted(file: string, name: string, entry: SubmittedTemplates[string]): void {
  const all = readSubmittedTemplates(file);
  all[name] = { ...all[name], ...entry };
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, `${JSON.stringify(all, null, 2)}\n`);
}
