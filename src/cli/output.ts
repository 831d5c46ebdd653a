import { writeSync } from 'node:fs';
import type { Writable } from 'node:stream';

export interface OutputOptions {
  json: boolean;
  stdout?: Writable;
  stderr?: Writable;
}

/**
 * The only way commands print. In `--json` mode stdout carries exactly one JSON document
 * (`result`), and human lines go to stderr so scripts can still log them.
 */
export class Output {
  readonly json: boolean;
  private readonly stdout: Writable;
  private readonly stderr: Writable;

  constructor(options: OutputOptions) {
    this.json = options.json;
    this.stdout = options.stdout ?? process.stdout;
    this.stderr = options.stderr ?? process.stderr;
  }

  /** A line for people (stdout normally, stderr in --json mode). */
  line(text = ''): void {
    (this.json ? this.stderr : this.stdout).write(`${text}\n`);
  }

  /** A warning or error line for people: always stderr. */
  warn(text: string): void {
    this.stderr.write(`${text}\n`);
  }

  /**
   * A warning that must show now, even while a progress display holds the terminal (listr2
   * buffers process.stderr while it renders) and even if the process exits right after.
   */
  urgent(text: string): void {
    if (this.stderr === process.stderr) writeSync(2, `${text}\n`);
    else this.stderr.write(`${text}\n`);
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
