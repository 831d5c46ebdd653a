import { writeSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { visibleText } from '../sheets/visible-text.js';

export interface OutputOptions {
  json: boolean;
  /** The environment, for NO_COLOR and TERM=dumb (default: process.env). */
  env?: NodeJS.ProcessEnv;
  stdout?: Writable;
  stderr?: Writable;
  /** Aborted by the first Ctrl-C or SIGTERM: a progress display then ends with ⚠, not ✔. */
  signal?: AbortSignal;
}

/** What the progress display on screen knows and takes (see `Output.progress`). */
export interface ProgressHooks {
  /** Writes in flight, as last reported by the apply (undefined outside an apply). */
  inFlight?: number | undefined;
  /** Shows a notice inside the display (its task line), instead of a line that would tear it. */
  notice?: ((text: string) => void) | undefined;
}

/**
 * The only way commands print. In `--json` mode stdout carries exactly one JSON document
 * (`result`), and human lines go to stderr so scripts can still log them.
 *
 * Every line goes out through `visibleText`: names, messages and errors carry text from sheets and
 * stores, and no control character in them (ESC, CSI, OSC 8 links, BEL, backspace, carriage
 * return) reaches the terminal; each is shown as its escape (`\x1b`). Line feeds of a message of
 * several lines are kept; a plan line (`planLine`) and a notice are one line, so theirs are shown.
 */
export class Output {
  readonly json: boolean;
  readonly signal: AbortSignal | undefined;
  /** Set by the progress display while it renders (withProgress). */
  progress: ProgressHooks = {};
  private readonly stdout: Writable;
  private readonly stderr: Writable;

  /** Colour in plan lines: only on a terminal, and never with NO_COLOR (no-color.org) or TERM=dumb. */
  readonly colour: boolean;

  constructor(options: OutputOptions) {
    this.json = options.json;
    this.signal = options.signal;
    this.stdout = options.stdout ?? process.stdout;
    this.stderr = options.stderr ?? process.stderr;
    const env = options.env ?? process.env;
    const noColor = env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '';
    this.colour = this.isTty && !noColor && env['TERM'] !== 'dumb';
  }

  /**
   * A plan line, coloured by what it does when colour is on: creates green, updates yellow,
   * hides and deletes red, skips dim.
   */
  planLine(text: string): void {
    const shown = visibleText(text);
    if (!this.colour) return this.line(shown);
    const verb = /\b(create|update|hide|delete|skipped|restore)\b/.exec(shown)?.[1];
    const code =
      verb === 'create' ? 32 : verb === 'hide' || verb === 'delete' ? 31 : verb === 'skipped' ? 2 : 33; // updates, restores and stock changes
    // The only escape sequences mbulk sends: its own colours, around text made visible above.
    this.people.write(`\u001b[${code}m${shown}\u001b[0m\n`);
  }

  /** A line for people (stdout normally, stderr in --json mode). */
  line(text = ''): void {
    this.people.write(`${visibleText(text, { lines: true })}\n`);
  }

  /** A warning or error line for people: always stderr. */
  warn(text: string): void {
    this.stderr.write(`${visibleText(text, { lines: true })}\n`);
  }

  /** Where lines for people go: stdout normally, stderr in --json mode. */
  private get people(): Writable {
    return this.json ? this.stderr : this.stdout;
  }

  /**
   * A warning that must show now, even while a progress display holds the terminal (listr2
   * buffers process.stderr while it renders) and even if the process exits right after.
   */
  urgent(text: string): void {
    const shown = `${visibleText(text, { lines: true })}\n`;
    if (this.stderr === process.stderr) writeSync(2, shown);
    else this.stderr.write(shown);
  }

  /**
   * A notice that must show at once (the first Ctrl-C's "stopping: …"): inside the progress
   * display while one renders, so the frame is replaced and not torn, else an urgent line.
   */
  notice(text: string): void {
    if (this.progress.notice !== undefined) this.progress.notice(visibleText(text));
    else this.urgent(`\nmbulk: ${text}`);
  }

  /** The last value given to `result` (notifications send it), whether or not it was printed. */
  lastResult: unknown;

  /** The machine-readable result: printed only in --json mode. */
  result(value: unknown): void {
    this.lastResult = value;
    if (this.json) this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** Whether stdout is an interactive terminal (progress bars, prompts). */
  get isTty(): boolean {
    return !this.json && Boolean((this.stdout as { isTTY?: boolean }).isTTY);
  }
}
