/**
 * Exit codes of every command (README, Exit codes) and the one map from an error's category to
 * its exit code: defined next to the error classes (src/errors) so a library error's `exitCode`
 * and the CLI's agree; the CLI reads them from here.
 */
export { ExitCode, exitCodeFor } from '../errors/exit-code.js';
