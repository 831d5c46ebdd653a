import { z } from 'zod';
import { STOCK_UNKNOWN_MODES, type StockUnknown } from '../../plan/stock-unknown.js';

/** plan.json's `stockUnknown` (the products plan): read by apply and by `mbulk mcp`'s plan view. */
export const StockUnknownSchema: z.ZodType<StockUnknown> = z.looseObject({
  products: z.number(),
  items: z.number(),
  mode: z.enum(STOCK_UNKNOWN_MODES).exactOptional(),
  examples: z.array(z.string()),
  byProduct: z.array(z.object({ product: z.string(), mode: z.enum(STOCK_UNKNOWN_MODES) })).exactOptional(),
  unchosen: z.number().exactOptional(),
});
