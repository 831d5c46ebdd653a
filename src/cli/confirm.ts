import { createInterface } from 'node:readline/promises';
import { CliError, InterruptedError } from './cli-error.js';
import { ExitCode } from './exit-code.js';
import { visibleText } from '../sheets/visible-text.js';
import type { Output } from './output.js';

/**
 * Asks before writing. `--yes` skips the question; without a terminal (cron, CI, --json) there is
 * nobody to ask, so the write is refused (exit 3) rather than done unconfirmed.
 */
export async function confirmApply(out: Output, question: string, yes: boolean): Promise<void> {
  if (yes) return;
  if (!out.isTty || !process.stdin.isTTY) {
    throw new CliError(
      'nothing was written: add --yes to apply without a confirmation prompt',
      ExitCode.Refused,
    );
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  // Ctrl-C at the prompt arrives as a keypress (raw mode), not a signal: an interrupt before any
  // write, which the CLI ends as it ends one during planning or the drift check (exit 130, naming
  // the command that continues the run).
  const interrupted = new Promise<never>((_, reject) =>
    rl.once('SIGINT', () => {
      // The cursor is after the question: what follows starts on a line of its own.
      process.stdout.write('\n');
      reject(new InterruptedError('Ctrl-C at the prompt'));
    }),
  );
  try {
    const answer = (await Promise.race([rl.question(`${visibleText(question)} [y/N] `), interrupted]))
      .trim()
      .toLowerCase();
    if (answer !== 'y' && answer !== 'yes') {
      throw new CliError('declined: nothing was written', ExitCode.Refused);
    }
  } finally {
    rl.close();
  }
}
