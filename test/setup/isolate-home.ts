import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Tests never write the real home directory: the embedded sandbox keeps its state in the user's
// data directory ($XDG_DATA_HOME/mbulk, else ~/.local/share/mbulk), so each test worker (and every
// child process it spawns with the inherited environment) gets a throwaway home of its own.
const home = mkdtempSync(join(tmpdir(), 'mbulk-test-home-'));
process.env['HOME'] = home;
process.env['XDG_DATA_HOME'] = join(home, '.local', 'share');
