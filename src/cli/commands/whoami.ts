import type { CommandContext, GlobalArgs } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import type { RegisterCommand } from './index.js';

/** What `mbulk whoami --json` prints (besides `ok`). */
export interface WhoamiResult {
  store: { id: string; name: string; alias: string };
  currency: string;
  decimals: number;
  timezone: string;
  country: string;
  target: { describe: string; embedded: boolean; url: string };
}

/** Reads the store behind the token: a cheap check that the target and the token work. */
export async function whoami(args: GlobalArgs, ctx: CommandContext): Promise<number> {
  const { resolveTarget } = await import('../target.js');
  const { currencyDecimals } = await import('../../schema/currency.js');
  const target = await resolveTarget(args, ctx);
  try {
    const me = await target.client.me({ signal: ctx.signal });
    const result: WhoamiResult = {
      store: { id: me.id, name: me.name, alias: me.alias },
      currency: me.currency,
      decimals: currencyDecimals(me.currency),
      timezone: me.timezone,
      country: me.country,
      target: {
        describe: target.describe,
        embedded: target.embedded,
        url: target.embedded ? target.baseUrl : target.describe,
      },
    };
    ctx.out.line(`Store:     ${me.name} (${me.id})`);
    ctx.out.line(`Currency:  ${me.currency} (${result.decimals} decimal${result.decimals === 1 ? '' : 's'})`);
    ctx.out.line(`Timezone:  ${me.timezone}`);
    ctx.out.line(`Country:   ${me.country}`);
    // The embedded sandbox was already named on the first line.
    if (!target.embedded) ctx.out.line(`Target:    ${target.describe}`);
    ctx.out.result({ ok: true, ...result });
    return ExitCode.Ok;
  } finally {
    await target.close();
  }
}

/** `mbulk whoami`: the store, its currency and decimals, timezone, and the target. */
export const registerWhoami: RegisterCommand = (parser, ctx, setExit) =>
  parser.command(
    'whoami',
    'Show the store behind the token (name, id, currency, timezone) and the target',
    (y) => y,
    async (argv) => {
      setExit(await whoami(argv as unknown as GlobalArgs, ctx));
    },
  );
