import { describe, expect, it } from 'vitest';
import { inToolTerms } from '../../../src/mcp/tool-terms.js';

/** No CLI command but the server's own, and no CLI flag but the server's. */
const CLI = [/\bmbulk (?!mcp\b)[a-z]/, /(?<!mbulk mcp )--[a-z]/];

describe('library messages in the tools’ terms', () => {
  it.each([
    ['the live store drifted since planning; plan again with mbulk apply R1 --replan', 'plan_import again'],
    ['run R1 was already interrupted; continue it with: mbulk runs resume R1', 'resume_run with run_id R1'],
    [
      'To check every operation its journal cannot prove against the store: mbulk runs resume R1 --reconcile',
      'reconcile: true',
    ],
    [
      'refused: the plan would hide 5 and delete 0 of 20 live products (more than 10% of the catalog or more than 50); check the sheet, or pass --allow-deletes',
      'mbulk mcp --max-hide',
    ],
    [
      '"12,90" is not an amount (write 12.90; for a decimal comma such as 12,90, run with --decimal-comma)',
      'decimal_comma: true',
    ],
    [
      'the sheet has no rows. Check the file, or pass --allow-empty if it is meant to be empty',
      'allow_empty: true',
    ],
    ['price jumps: pass --allow-price-jumps', 'allow.price_jumps'],
    [
      "6 items keyed by Item Name; stock is the sum of 2 locations (A, B): --location NAME takes one location's",
      "location takes one location's",
    ],
    ['--location "Back room" is not a location of this Square export', 'location "Back room"'],
    ['--apply refuses until you choose --stock-unknown untracked', 'stock_unknown: "untracked"'],
    [
      '1 by its own choice (--stock-unknown KEY=MODE: woo:45 zero); 1 without a choice',
      'stock_unknown: ["KEY=MODE"]',
    ],
    ['created by the run: kept (use --delete-created to delete it)', 'delete_created: true'],
    [
      'plan it again: mbulk runs rollback R1 --delete-created --apply',
      'rollback_run with run_id R1 and delete_created: true',
    ],
    [
      'nothing was sent: 2 invalid row(s); fix them (see report.md) or plan with --skip-invalid',
      'skip_invalid: true',
    ],
  ])('%s', (message, says) => {
    const said = inToolTerms(message);
    expect(said).toContain(says);
    for (const cli of CLI) expect(said).not.toMatch(cli);
  });

  it('leaves the operator’s server flags as they are', () => {
    const text = 'only the operator can: mbulk mcp --allow-delete, mbulk mcp --max-changes 600';
    expect(inToolTerms(text)).toBe(text);
  });
});

describe('the export tool’s messages in its own terms (one table with the other tools’)', () => {
  it.each([
    ['--tax-type needs --profile xero', 'accounting.tax_type needs accounting.profile xero'],
    [
      '--accounts takes kind=CODE pairs joined by commas',
      'accounting.accounts takes kind=CODE pairs joined by commas',
    ],
    [
      '--payments needs --accounts payment=CODE',
      'accounting.payments needs accounting.accounts payment=CODE',
    ],
    [
      '--feed needs --incremental; --dry-run counts',
      'incremental.feed needs incremental; incremental.dry_run counts',
    ],
    ['run mbulk export orders --since 2026-01-01', 'run export orders since 2026-01-01'],
    ['"12,90": pass --decimal-comma', '"12,90": pass decimal_comma'],
  ])('%s', (message, said) => {
    expect(inToolTerms(message, 'export')).toBe(said);
    for (const cli of CLI) expect(inToolTerms(message, 'export')).not.toMatch(cli);
  });

  it('the shared terms still apply to the export tool, and its own to no other tool', () => {
    expect(inToolTerms('continue it with: mbulk runs resume R1', 'export')).toContain(
      'resume_run with run_id R1',
    );
    expect(inToolTerms('--tax-type needs --profile')).toBe('--tax-type needs --profile');
    expect(inToolTerms('run with --decimal-comma')).toBe('plan with decimal_comma: true');
  });
});
