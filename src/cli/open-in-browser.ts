import { spawn } from 'node:child_process';

/**
 * Opens a file in the default browser (`mbulk runs show RUN --open`). The command is `MBULK_OPEN`
 * when set (split on spaces, the file appended as the last argument: lets tests and unusual
 * desktops choose), else `open` on macOS, `cmd /c start ""` on Windows and `xdg-open` elsewhere.
 */
export function openerCommand(
  file: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): { command: string; args: string[] } {
  const custom = env['MBULK_OPEN']?.trim();
  if (custom) {
    const [command, ...args] = custom.split(/\s+/);
    return { command: command as string, args: [...args, file] };
  }
  if (platform === 'darwin') return { command: 'open', args: [file] };
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', file] };
  return { command: 'xdg-open', args: [file] };
}

/** How long to wait for the opener to report failure before leaving it running (some block while the browser is open). */
const WAIT_MS = 3000;

/**
 * Runs the opener; resolves when it exited 0 or is still running after a few seconds, rejects
 * with a message saying what to do when it cannot be started or fails.
 */
export function openInBrowser(
  file: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Promise<void> {
  const { command, args } = openerCommand(file, env, platform);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, env });
    const timer = setTimeout(() => {
      child.unref();
      resolve();
    }, WAIT_MS);
    timer.unref();
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new Error(
          `cannot start ${command} (${error.code ?? error.message}) to open ${file}: open it yourself, or set MBULK_OPEN to a command that opens a file`,
        ),
      );
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `${command} failed (${signal ?? `exit ${code}`}) to open ${file}: open it yourself, or set MBULK_OPEN to a command that opens a file`,
          ),
        );
    });
  });
}
