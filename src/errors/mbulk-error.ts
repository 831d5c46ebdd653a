import type { ErrorCategory } from './error-category.js';
import { isErrorCategory } from './error-category.js';
import { exitCodeFor, type ExitCode } from './exit-code.js';

/**
 * The class names an error was built from (`['MbulkError', 'ApiError', 'AuthenticationError']`),
 * under a registry symbol: the same in every copy of this package, so guards work across copies
 * (two versions in one node_modules tree) where `instanceof` alone would not.
 */
const CLASSES = Symbol.for('merchant-bulk.error.classes');

/** The constructor of an MbulkError subclass, whatever its parameters. */
type ErrorClass<T> = abstract new (...args: never[]) => T;

/**
 * Root of every error merchant-bulk throws. `category` says what kind of failure it is (the CLI
 * maps it to its exit code); subclasses add what locates the problem (a request id, a file and
 * cell, a run). Each class has a guard, `Class.is(value)`, that also recognises errors from another
 * copy of the package, and `instanceof` works across copies too.
 */
export class MbulkError extends Error {
  /** The stable class name guards match on (set by each subclass: minifiers rename classes). */
  static readonly errorName: string = 'MbulkError';
  readonly category: ErrorCategory;

  constructor(category: ErrorCategory, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.category = category;
    this.name = ownErrorName(new.target) ?? 'MbulkError';
    const names: string[] = [];
    for (let c: unknown = new.target; typeof c === 'function'; c = Object.getPrototypeOf(c)) {
      const name = ownErrorName(c);
      if (name !== undefined) names.unshift(name);
      if (c === MbulkError) break;
    }
    // Not enumerable: JSON summaries and test equality leave it out.
    Object.defineProperty(this, CLASSES, { value: Object.freeze(names), enumerable: false });
  }

  /** The CLI's exit code for this error (from its category: README, Exit codes). */
  get exitCode(): ExitCode {
    return exitCodeFor(this.category);
  }

  /**
   * Whether `value` is an instance of this class (`ApiError.is(e)`, `MbulkError.is(e)`), also when
   * it comes from another copy of merchant-bulk.
   */
  static is<T>(this: ErrorClass<T>, value: unknown): value is T {
    return isErrorOfClass(value, this);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return isErrorOfClass(value, this);
  }
}

function ownErrorName(c: unknown): string | undefined {
  if (typeof c !== 'function' || !Object.hasOwn(c, 'errorName')) return undefined;
  const name = (c as { errorName?: unknown }).errorName;
  return typeof name === 'string' ? name : undefined;
}

function isErrorOfClass(value: unknown, cls: unknown): boolean {
  if (typeof cls === 'function' && Function.prototype[Symbol.hasInstance].call(cls, value)) return true;
  if (value === null || typeof value !== 'object') return false;
  const name = ownErrorName(cls);
  const names = (value as { [CLASSES]?: unknown })[CLASSES];
  return (
    name !== undefined &&
    Array.isArray(names) &&
    names.includes(name) &&
    isErrorCategory((value as { category?: unknown }).category)
  );
}

/** Whether `value` is an MbulkError (from any copy of merchant-bulk). */
export function isMbulkError(value: unknown): value is MbulkError {
  return MbulkError.is(value);
}
