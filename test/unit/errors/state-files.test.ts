import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBackup } from '../../../src/apply/backup.js';
import { RunDirectory, RunFileError, openRun } from '../../../src/apply/run-directory.js';
import { describeError } from '../../../src/cli/describe-error.js';
import { fetchRemoteSource } from '../../../src/feeds/remote-source.js';
import { StateFileError } from '../../../src/errors/state-file-error.js';
import { loadExportState } from '../../../src/export/watermark.js';
import { readStateFile } from '../../../src/sandbox/persistence.js';

// Every file merchant-bulk keeps its own state in, damaged: a typed StateFileError (exit 2) that
// names the file and says what to do, never a plain Error, a SyntaxError or a silent reset.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-state-files-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function damaged(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

async function failure(work: () => unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

function expectStateFileError(error: unknown, file: string, todo: RegExp): void {
  expect(StateFileError.is(error), String(error)).toBe(true);
  const e = error as StateFileError;
  expect(e.category).toBe('usage');
  expect(e.file).toBe(file);
  expect(e.message).toContain(file);
  expect(e.message).toMatch(todo);
  expect(describeError(error).exitCode).toBe(2);
}

describe('damaged state files', () => {
  it('exports.json (the export watermarks): fix it or delete it to start the feeds again', async () => {
    for (const text of ['{"version":1,', '{"version":1,"exports":{"k":{"watermark":5}}}']) {
      const file = damaged('exports.json', text);
      expectStateFileError(await failure(() => loadExportState(file)), file, /delete it to start every feed/);
    }
  });

  it("the sandbox's state file: delete it or --reset", async () => {
    for (const text of ['{"format":', '{"format":"nope"}']) {
      const file = damaged('sandbox.json', text);
      expectStateFileError(await failure(() => readStateFile(file)), file, /--reset/);
    }
  });

  it("a run's backup.json: restore it from a copy, or the run cannot be rolled back", async () => {
    for (const text of ['{"version":1,"entities":[{"type":"product"', 'null']) {
      const file = damaged('run/backup.json', text);
      expectStateFileError(
        await failure(() => readBackup(file, path.join(dir, 'absent.ndjson'))),
        file,
        /cannot be rolled back/,
      );
    }
  });

  it("a run's run.json: a RunFileError, one of the state file errors", async () => {
    const run = RunDirectory.create(path.join(dir, 'runs'), { kind: 'stock', target: 'test' });
    fs.writeFileSync(run.file('meta'), '{"id":');
    const error = await failure(() => openRun(path.join(dir, 'runs'), run.id));
    expect(error).toBeInstanceOf(RunFileError);
    expectStateFileError(error, run.file('meta'), /Plan the run again/);
  });

  it('sources.json (the remembered feeds): delete it, every feed is then new; nothing is downloaded', async () => {
    for (const text of ['{"abc":', '{"abc":null}', '[]']) {
      const file = damaged('sources.json', text);
      const error = await failure(() =>
        fetchRemoteSource({
          url: 'http://127.0.0.1:9/stock.csv',
          headers: [],
          force: false,
          stateFile: file,
          insecureHttp: false,
        }),
      );
      expectStateFileError(error, file, /delete it: every feed is then downloaded and imported as new/);
    }
  });
});
