import { OPTION_TYPES } from '../schema/product.js';
import type { OptionType } from '../schema/product.js';
import { parseBooleanCell } from '../sheets/boolean-cell.js';
import { cellError, cellOk, cellText, isBlank } from '../sheets/cell-result.js';
import type { CellResult } from '../sheets/cell-result.js';
import { parseIntegerCell } from '../sheets/integer-cell.js';
import type { CellValue } from '../sheets/sheet-row.js';
import type { OptionSheetColumn } from './column-aliases.js';
import { parseOptionChoices } from './options-choices.js';
import type { DesiredOption, ProductMappingOptions } from './product-desired.js';

export type OptionCellDecoder = (value: CellValue) => CellResult<unknown> | undefined;

/** DesiredOption field each option column fills (key columns are handled by the product mapper). */
export const OPTION_FIELD_OF: Readonly<Partial<Record<OptionSheetColumn, keyof DesiredOption>>> = {
  option_id: 'id',
  option_type: 'type',
  option_text: 'text',
  option_required: 'required',
  option_choices: 'choices',
  option_min: 'min',
  option_max: 'max',
  option_enable_quantity: 'enableQuantity',
};

const TYPE_SET: ReadonlySet<string> = new Set(OPTION_TYPES);

/** `selection`, `Option_Selection` and `OPTION_SELECTION` all mean OPTION_SELECTION. */
function decodeOptionType(value: CellValue): CellResult<OptionType> | undefined {
  if (isBlank(value)) return undefined;
  let t = cellText(value).trim().toUpperCase();
  if (!t.startsWith('OPTION_')) t = `OPTION_${t}`;
  if (TYPE_SET.has(t)) return cellOk(t as OptionType);
  return cellError(
    'enum_invalid',
    `write one of ${OPTION_TYPES.join(', ')} (or its short form: text, number, date, checkbox, selection, media)`,
  );
}

/** Decoders for the option columns, built once per sheet. */
export function buildOptionDecoders(
  options: ProductMappingOptions,
): ReadonlyMap<OptionSheetColumn, OptionCellDecoder> {
  const choiceOptions = {
    decimals: options.decimals,
    decimalComma: options.decimalComma ?? false,
    money: options.money ?? 'units',
  };
  const trimmed: OptionCellDecoder = (v) => (isBlank(v) ? undefined : cellOk(cellText(v).trim()));
  const bool: OptionCellDecoder = (v) => (isBlank(v) ? undefined : parseBooleanCell(v));
  const nonNeg: OptionCellDecoder = (v) => (isBlank(v) ? undefined : parseIntegerCell(v, { min: 0 }));
  return new Map<OptionSheetColumn, OptionCellDecoder>([
    ['option_id', trimmed],
    ['option_type', decodeOptionType],
    ['option_text', trimmed],
    ['option_required', bool],
    ['option_choices', (v) => (isBlank(v) ? undefined : parseOptionChoices(cellText(v), choiceOptions))],
    ['option_min', nonNeg],
    ['option_max', nonNeg],
    ['option_enable_quantity', bool],
  ]);
}
