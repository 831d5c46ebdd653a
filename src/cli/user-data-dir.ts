import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * Where mbulk keeps per-user state (the embedded sandbox's store): `$XDG_DATA_HOME/mbulk`, else
 * `~/.local/share/mbulk` (the XDG Base Directory default), whatever the working directory.
 */
export function userDataDir(env: NodeJS.ProcessEnv): string {
  const xdg = env['XDG_DATA_HOME'];
  // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
  if (xdg !== undefined && xdg !== '' && isAbsolute(xdg)) return join(xdg, 'mbulk');
  const home = env['HOME'] !== undefined && env['HOME'] !== '' ? env['HOME'] : homedir();
  return join(home, '.local', 'share', 'mbulk');
}

/** The embedded sandbox's state file: `<user data dir>/sandbox.json`. */
export function defaultSandboxDataFile(env: NodeJS.ProcessEnv): string {
  return join(userDataDir(env), 'sandbox.json');
}
