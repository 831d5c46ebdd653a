// vitest globalSetup: makes the in-process tiers' scratch directory on the RAM disk (named by
// vitest.config.ts in MBULK_TEST_SCRATCH: /dev/shm/mbulk-tests-<pid of the run>) and removes it,
// with whatever the tests left there, when the run ends; and those of runs killed before their end.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export default function setup(): (() => void) | undefined {
  const dir = process.env['MBULK_TEST_SCRATCH'];
  if (dir === undefined) return undefined;
  for (const name of readdirSync('/dev/shm')) {
    const pid = /^mbulk-tests-(\d+)$/.exec(name)?.[1];
    if (pid !== undefined && !alive(Number(pid)))
      rmSync(join('/dev/shm', name), { recursive: true, force: true });
  }
  mkdirSync(dir, { recursive: true });
  return () => rmSync(dir, { recursive: true, force: true });
}
