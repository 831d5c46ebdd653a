import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveCustomerColumns } from '../../../src/mapping/customer-sheet.js';
import { resolveStockColumns } from '../../../src/mapping/stock-sheet.js';
import { resolveTemplateColumns } from '../../../src/mapping/template-sheet.js';
import { readSheet } from '../../../src/sheets/read-sheet.js';

async function columns(file: string, sheet?: string) {
  return readSheet(resolve(file), sheet ? { sheet } : {}).columns();
}

describe('blank templates users copy', () => {
  it.each([
    ['templates/stock.csv', undefined],
    ['templates/stock-and-customers.xlsx', 'stock'],
  ])('%s %s has every stock column the importer needs, and nothing it ignores', async (file, sheet) => {
    const { issues } = resolveStockColumns('stock', await columns(file, sheet));
    expect(issues).toEqual([]);
  });

  it.each([
    ['templates/customers.csv', undefined],
    ['templates/stock-and-customers.xlsx', 'customers'],
  ])('%s %s is a valid customers sheet', async (file, sheet) => {
    const { issues } = resolveCustomerColumns('customers', await columns(file, sheet));
    expect(issues).toEqual([]);
  });

  it('templates/message-templates.csv is a valid template sheet', async () => {
    const { issues } = resolveTemplateColumns('t', await columns('templates/message-templates.csv'));
    expect(issues).toEqual([]);
  });
});
