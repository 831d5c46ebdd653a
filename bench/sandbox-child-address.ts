import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/**
 * The `{url, token}` a bench's sandbox child prints as its first line of stdout (JSON); rejects if
 * the child exits first.
 */
export function sandboxChildAddress(
  child: ChildProcessByStdio<Writable, Readable, null>,
): Promise<{ url: string; token: string }> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (c: Buffer) => {
      text += c.toString();
      const nl = text.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(text.slice(0, nl)) as { url: string; token: string });
    });
    child.on('exit', (code) => reject(new Error(`sandbox child exited with ${String(code)}`)));
  });
}
