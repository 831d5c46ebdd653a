import { describe, expect, it } from 'vitest';
import {
  PARENT_CHECK_MS,
  STOP_WITH_PARENT_ENV,
  stopWithParent,
} from '../../../src/fleet/stop-with-parent.js';

// The watch a store of a fleet keeps on its fleet (the e2e tests kill a real fleet; here, the rule).
describe('stopWithParent', () => {
  it('does nothing without the variable, or with one that names no process', async () => {
    let gone = 0;
    for (const env of [
      {},
      { [STOP_WITH_PARENT_ENV]: '' },
      { [STOP_WITH_PARENT_ENV]: 'x' },
      { [STOP_WITH_PARENT_ENV]: '1' },
    ])
      stopWithParent(env, () => (gone += 1))();
    await new Promise((r) => setTimeout(r, 10));
    expect(gone).toBe(0);
  });

  it('keeps quiet while the parent named is this process’s parent', async () => {
    let gone = 0;
    const stop = stopWithParent({ [STOP_WITH_PARENT_ENV]: String(process.ppid) }, () => (gone += 1));
    await new Promise((r) => setTimeout(r, PARENT_CHECK_MS + 50));
    stop();
    expect(gone).toBe(0);
  });

  it('says so once, at once, when the parent named is already gone (this process has another)', async () => {
    let gone = 0;
    const stop = stopWithParent(
      { [STOP_WITH_PARENT_ENV]: String(process.ppid + 100_000) },
      () => (gone += 1),
    );
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(gone).toBe(1);
    await new Promise((r) => setTimeout(r, PARENT_CHECK_MS + 50));
    stop();
    expect(gone).toBe(1);
  });
});
