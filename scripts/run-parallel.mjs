// Runs npm scripts at the same time (`node scripts/run-parallel.mjs typecheck lint:eslint …`):
// `npm run check` and `npm run lint` start their checks together instead of one after the other
// (each of tsc, eslint, prettier and dpdm keeps one core busy). Each script's output is printed
// whole when it ends, under its name and time, so two outputs never interleave; the exit code is
// the first failure's (0 when all pass), after every script has ended.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  process.stderr.write('usage: node scripts/run-parallel.mjs SCRIPT...\n');
  process.exit(2);
}

const npm = process.env['npm_execpath'];
const started = performance.now();

/** Runs one npm script; resolves with its exit code once it has ended and its output is printed. */
function run(script) {
  const [command, args] = npm
    ? [process.execPath, [npm, 'run', '--silent', script]]
    : ['npm', ['run', '--silent', script]];
  const child = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: process.env['FORCE_COLOR'] ?? (process.stdout.isTTY ? '1' : '0') },
  });
  const chunks = [];
  child.stdout.on('data', (chunk) => chunks.push(chunk));
  child.stderr.on('data', (chunk) => chunks.push(chunk));
  return new Promise((done) => {
    child.on('close', (code, signal) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const status = code === 0 ? 'ok' : `failed (${signal ?? `exit ${code}`})`;
      const output = Buffer.concat(chunks).toString();
      process.stdout.write(
        `\n> ${script}: ${status} after ${seconds} s\n${output}${output.endsWith('\n') || output === '' ? '' : '\n'}`,
      );
      done(code ?? 1);
    });
  });
}

const codes = await Promise.all(scripts.map(run));
process.exitCode = codes.find((code) => code !== 0) ?? 0;
