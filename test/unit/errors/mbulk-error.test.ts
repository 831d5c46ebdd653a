import { describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  ConnectionError,
  EmptySheetError,
  JournalWriteError,
  MbulkError,
  MerchantClient,
  NotFoundError,
  RefusedError,
  SheetError,
  SheetHeaderError,
  TimeoutError,
  UsageError,
  exitCodeFor,
  isMbulkError,
  planStockImport,
} from '../../../src/index.js';
import * as lib from '../../../src/index.js';
import type * as Lib from '../../../src/index.js';
import { UnsupportedEncodingError } from '../../../src/api/decode-body.js';
import { CliError, InterruptedError } from '../../../src/cli/cli-error.js';
import { describeError } from '../../../src/cli/describe-error.js';
import { ExitCode } from '../../../src/cli/exit-code.js';
import { SandboxError } from '../../../src/sandbox/sandbox-error.js';
import { NotRegularFileError } from '../../../src/sheets/read-regular-file.js';

describe('MbulkError: one family, a category each', () => {
  it('gives every error a category, and the CLI its exit code from it', () => {
    const cases: [MbulkError, string, number][] = [
      [new UsageError('--max-changes must be a count', 'max-changes'), 'usage', 2],
      [new RefusedError('refused: 3 changes, over --max-changes 1'), 'refused', 3],
      [new EmptySheetError('stock.csv'), 'refused', 3],
      [new SheetHeaderError('stock.csv: no sku column', []), 'usage', 2],
      [new SheetError('file_not_found', 'stock.csv: not found', { file: 'stock.csv' }), 'usage', 2],
      [new ConnectionError('connect ECONNREFUSED', false), 'unreachable', 4],
      [new TimeoutError('headers timeout', true), 'unreachable', 4],
      [
        ApiError.from(401, { error: { type: 'authentication_error', message: 'bad token' } }),
        'unreachable',
        4,
      ],
      [ApiError.from(404, { error: { type: 'not_found_error', message: 'no such product' } }), 'failed', 1],
      [
        new JournalWriteError('/runs/r/journal.ndjson', Object.assign(new Error('full'), { code: 'ENOSPC' })),
        'local',
        5,
      ],
      [new CliError('--port must be an integer'), 'usage', 2],
      [new CliError('declined: nothing was written', ExitCode.Refused), 'refused', 3],
      [new CliError('review failed', ExitCode.RowsFailed), 'failed', 1],
      [new CliError('cannot reach the sandbox', ExitCode.Unreachable), 'unreachable', 4],
      [new CliError('interrupted: nothing was written', ExitCode.Interrupted), 'interrupted', 130],
      [new InterruptedError('SIGTERM'), 'interrupted', 130],
      [new SandboxError('authentication_error', 'invalid_token', 'bad token'), 'unreachable', 4],
      [new SandboxError('not_found_error', 'resource_missing', 'no product'), 'failed', 1],
      [new UnsupportedEncodingError('zstd'), 'unreachable', 4],
      [new NotRegularFileError('/tmp/fifo'), 'usage', 2],
    ];
    for (const [error, category, code] of cases) {
      expect(error, error.name).toBeInstanceOf(MbulkError);
      expect(error.category, error.name).toBe(category);
      expect(exitCodeFor(error.category), error.name).toBe(code);
      expect(describeError(error).exitCode, error.name).toBe(code);
    }
  });

  it('roots every error class the library exports in MbulkError', () => {
    const errorClasses = Object.entries(lib as Record<string, unknown>).filter(
      (entry): entry is [string, { prototype: unknown }] =>
        typeof entry[1] === 'function' && (entry[1] as { prototype?: unknown }).prototype instanceof Error,
    );
    expect(errorClasses.length).toBeGreaterThan(20);
    const outside = errorClasses.filter(
      ([, value]) => value !== MbulkError && !(value.prototype instanceof MbulkError),
    );
    expect(outside.map(([name]) => name)).toEqual([]);
  });

  it('names each error after its class, and each class guard matches only its own kind', () => {
    const auth = ApiError.from(401, { error: { type: 'authentication_error', message: 'bad token' } });
    expect(auth.name).toBe('AuthenticationError');
    expect(AuthenticationError.is(auth) && ApiError.is(auth) && MbulkError.is(auth)).toBe(true);
    expect(NotFoundError.is(auth)).toBe(false);
    expect(ApiError.is(auth)).toBe(true);
    const timeout = new TimeoutError('headers timeout', true);
    expect(timeout.name).toBe('TimeoutError');
    expect(ConnectionError.is(timeout) && !ApiError.is(timeout)).toBe(true);
    expect(isMbulkError(new Error('plain'))).toBe(false);
    expect(isMbulkError({ category: 'usage', message: 'looks like one' })).toBe(false);
    // The class list guards read is not enumerable: JSON shows what it did before, and the category.
    const refused = new RefusedError('no');
    expect(
      Object.getOwnPropertySymbols(refused).every(
        (k) => !Object.getOwnPropertyDescriptor(refused, k)?.enumerable,
      ),
    ).toBe(true);
    expect(JSON.parse(JSON.stringify(refused))).toEqual({ category: 'refused', name: 'RefusedError' });
  });

  it('recognises errors thrown by another copy of the package (guards and instanceof)', async () => {
    vi.resetModules();
    // A second instance of the modules, as two installed copies of merchant-bulk would be.
    const specifier = new URL('../../../src/index.ts?copy', import.meta.url).href;
    const copy = (await import(/* @vite-ignore */ specifier)) as typeof Lib;
    expect(copy.ApiError).not.toBe(ApiError);
    const foreign = copy.ApiError.from(401, {
      error: { type: 'authentication_error', message: 'bad token' },
    });
    expect(Object.getPrototypeOf(foreign)).not.toBe(AuthenticationError.prototype);
    expect(isMbulkError(foreign)).toBe(true);
    expect(ApiError.is(foreign)).toBe(true);
    expect(AuthenticationError.is(foreign)).toBe(true);
    expect(NotFoundError.is(foreign)).toBe(false);
    expect(foreign instanceof ApiError).toBe(true);
    expect(foreign instanceof ConnectionError).toBe(false);
    expect(describeError(foreign).exitCode).toBe(4);
  });

  it('throws a flag error as a UsageError, not a sheet error (nothing is read or asked)', async () => {
    const client = new MerchantClient({ baseUrl: 'http://127.0.0.1:9', token: 'tok_unused', maxRetries: 0 });
    const error = await planStockImport({
      client,
      file: 'stock.csv',
      runsRoot: '/nonexistent',
      target: 'test',
      maxChanges: 'lots',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error).not.toBeInstanceOf(SheetHeaderError);
    expect(error).toMatchObject({ category: 'usage', option: 'max-changes' });
    expect(describeError(error)).toEqual({
      message: '--max-changes must be a count (50) or a percentage (10%), not "lots"',
      exitCode: 2,
    });
  });
});
