import { Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';

/** A writable that keeps what is written to it. */
export function captureStream(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs). */
  json: <T = Record<string, unknown>>() => T;
}

/** Runs the CLI in-process (`main`), capturing stdout and stderr. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliRun> {
  const stdout = captureStream();
  const stderr = captureStream();
  const code = await main(argv, { env, cwd, stdout: stdout.stream, stderr: stderr.stream });
  return {
    code,
    stdout: stdout.text(),
    stderr: stderr.text(),
    json: <T>() => JSON.parse(stdout.text()) as T,
  };
}
