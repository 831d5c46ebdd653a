import { describe, expect, it } from 'vitest';
import { describeError } from '../../../src/cli/describe-error.js';

const enospc = (path?: string) =>
  Object.assign(new Error(`ENOSPC: no space left on device, write`), {
    code: 'ENOSPC',
    syscall: 'write',
    ...(path === undefined ? {} : { path }),
  });

describe('a disk error escaping a command', () => {
  it('wrapped by a writer ("cannot write FILE", the errno as cause) exits 5 like a bare one', () => {
    const cause = enospc();
    const wrapped = new Error(`cannot write /out/a:b.csv: ${cause.message}`, { cause });
    expect(describeError(wrapped)).toEqual({
      message: 'cannot write /out/a:b.csv: the disk is full (ENOSPC); fix it and run the command again',
      exitCode: 5,
      code: 'ENOSPC',
    });
    // Any other wrapped error is not a local failure.
    const other = new Error('cannot write x: bad', { cause: new Error('bad') });
    expect(describeError(other).exitCode).toBe(1);
  });

  it('during an apply names the run and its journal, not the word RUN', () => {
    const described = describeError(enospc(), {
      id: '20261125-1-stock-ab12',
      journal: '/runs/r/journal.ndjson',
    });
    expect(described.exitCode).toBe(5);
    expect(described.message).toBe(
      'cannot write: the disk is full (ENOSPC); run 20261125-1-stock-ab12 stopped; its journal /runs/r/journal.ndjson records what was sent. Fix it, then continue with: mbulk runs resume 20261125-1-stock-ab12',
    );
  });
});
