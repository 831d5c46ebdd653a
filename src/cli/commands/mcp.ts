import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CommandContext, GlobalArgs } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import type { RegisterCommand } from './index.js';

interface McpArgs extends GlobalArgs {
  'read-only': boolean;
  'allow-delete': boolean;
  'max-changes': number;
  'max-hide'?: string | undefined;
  'files-root'?: string | undefined;
  'runs-dir'?: string | undefined;
  'exports-dir'?: string | undefined;
}

/**
 * `mbulk mcp`: an MCP server on stdin/stdout for AI assistants, against the same target as every
 * command. stdout carries the protocol only: every line of ours goes to stderr. Runs until the
 * client closes stdin (or SIGINT/SIGTERM, which stops an apply in flight as Ctrl-C does).
 */
export async function serveMcp(args: McpArgs, ctx: CommandContext): Promise<number> {
  const { CliError } = await import('../cli-error.js');
  const maxChanges = args['max-changes'];
  if (!Number.isInteger(maxChanges) || maxChanges < 1)
    throw new CliError('--max-changes must be a whole number >= 1', ExitCode.Usage);
  const { DEFAULT_REMOVAL_LIMIT, parseMaxHide } = await import('../../mcp/mcp-options.js');
  const maxHide = args['max-hide'] === undefined ? DEFAULT_REMOVAL_LIMIT : parseMaxHide(args['max-hide']);
  if (maxHide === undefined)
    throw new CliError(
      `--max-hide must be a share of the catalog (20%) or a number of products (200), not "${args['max-hide']}"`,
      ExitCode.Usage,
    );
  const filesRoot = resolve(ctx.cwd, args['files-root'] ?? '.');
  if (!existsSync(filesRoot) || !statSync(filesRoot).isDirectory())
    throw new CliError(`--files-root ${filesRoot}: not a directory`, ExitCode.Usage);
  const { Output } = await import('../output.js');
  // Nothing but the protocol on stdout: human lines (a sandbox banner, warnings) go to stderr.
  const quiet: CommandContext = {
    ...ctx,
    out: new Output({ json: true, env: ctx.env, stdout: process.stderr }),
  };
  const { resolveTarget } = await import('../target.js');
  const target = await resolveTarget(args, quiet, { announce: false });
  try {
    const { createMcpServer } = await import('../../mcp/mcp-server.js');
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const { commandStoreLock } = await import('../lock-store.js');
    const { packageVersion } = await import('../package-version.js');
    const runsRoot = resolve(ctx.cwd, args['runs-dir'] ?? '.mbulk/runs');
    const server = createMcpServer({
      client: target.client,
      target: target.describe,
      options: {
        readOnly: args['read-only'],
        allowDelete: args['allow-delete'],
        maxChanges,
        maxHide,
        filesRoot,
        runsRoot,
        exportsDir: resolve(ctx.cwd, args['exports-dir'] ?? '.mbulk/exports'),
      },
      cwd: ctx.cwd,
      lock: commandStoreLock(quiet),
      signal: ctx.signal,
      version: packageVersion(),
    });
    // A tool's failure is a tool error (guarded); should a promise of ours still reject unhandled
    // (a bug), the server says so on stderr and keeps serving: the assistant keeps its tools.
    const keepServing = (error: unknown): void => {
      process.stderr.write(
        `mbulk mcp: internal error, still serving: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    };
    process.on('unhandledRejection', keepServing);
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((done) => {
      transport.onclose = () => done();
      process.stdin.once('end', () => done());
      ctx.signal.addEventListener('abort', () => done(), { once: true });
    });
    await server.connect(transport);
    await closed;
    await server.close();
    process.off('unhandledRejection', keepServing);
    return ExitCode.Ok;
  } finally {
    await target.close();
  }
}

export const registerMcp: RegisterCommand = (parser, ctx, setExit) =>
  parser.command(
    'mcp',
    'Serve the Model Context Protocol on stdin/stdout: an AI assistant plans, shows and applies bulk changes through the same guards as the CLI',
    (y) =>
      y
        .option('read-only', {
          type: 'boolean',
          default: false,
          describe: 'Planning, showing, status and exports only: no tool that writes to the store',
        })
        .option('allow-delete', {
          type: 'boolean',
          default: false,
          describe: 'Let an apply delete products (default: never; hide only)',
        })
        .option('max-changes', {
          type: 'number',
          default: 500,
          describe: 'The most entities one apply may write; the assistant cannot raise it',
        })
        .option('max-hide', {
          type: 'string',
          describe:
            'The most products one plan may hide and delete: a share of the catalog (20%) or a count (200); default 10% and at most 50, as the CLI',
        })
        .option('files-root', {
          type: 'string',
          describe:
            'The one directory a source.file may be read from (default: the working directory); paths leaving it (.., absolute, symlinks) are refused',
        })
        .option('runs-dir', { type: 'string', describe: 'Where run directories go (default: .mbulk/runs)' })
        .option('exports-dir', { type: 'string', describe: 'Where exports go (default: .mbulk/exports)' })
        .example('$0 mcp', 'for an assistant: plans and applies with the guards')
        .example('$0 mcp --read-only', 'plans, reviews and exports only')
        .example(
          '$0 mcp --max-hide 20% --files-root ~/sheets',
          'hides up to a fifth of the catalog; sheets from ~/sheets only',
        ),
    async (argv) => {
      setExit(await serveMcp(argv as unknown as McpArgs, ctx));
    },
  );
