import { describe, expect, it } from 'vitest';
import { visibleCut, visibleText } from '../../../src/sheets/visible-text.js';

describe('visibleText', () => {
  it('shows every control character as its escape and sends none', () => {
    const hostile =
      'A\u001b[2J\u001b[H\u001b[32m✔ Applied\u001b[0m\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007\b\b\rZ\u009b1m\u202eabc\u007f\u0000';
    const shown = visibleText(hostile);
    expect(shown).toBe(
      'A\\x1b[2J\\x1b[H\\x1b[32m✔ Applied\\x1b[0m\\x1b]8;;https://evil.example\\x07link\\x1b]8;;\\x07\\x08\\x08\\rZ\\x9b1m\\u202eabc\\x7f\\x00',
    );
    // eslint-disable-next-line no-control-regex -- the point of the test
    expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  it('keeps line feeds only when asked (text of several lines mbulk wrote), shows tabs and CR either way', () => {
    expect(visibleText('a\nb\tc\r\n')).toBe('a\\nb\\tc\\r\\n');
    expect(visibleText('a\nb\tc\r\n', { lines: true })).toBe('a\nb\\tc\\r\n');
  });

  it('leaves plain text (accents, emoji, right-to-left scripts) as it is, and is idempotent', () => {
    for (const text of ['Café 12.50 MYR', 'محل 🛒', 'a\\x1b literal backslash'])
      expect(visibleText(text)).toBe(text);
    const once = visibleText('\u001b[31mred');
    expect(visibleText(once)).toBe(once);
  });
});

describe('visibleCut', () => {
  it('makes text visible before cutting it, so no raw escape survives the cut', () => {
    const name = '\u001b]8;;https://evil.example/a-very-long-address\u0007Click\u001b]8;;\u0007';
    const cut = visibleCut(name, 12);
    expect(cut).toBe('\\x1b]8;;http…');
    expect(cut).not.toContain('\u001b');
  });

  it('never splits an escape or a surrogate pair', () => {
    expect(visibleCut('abc\u001bdef', 5)).toBe('abc…');
    expect(visibleCut('abc\u001bdef', 7)).toBe('abc\\x1b…');
    expect(visibleCut('ab🛒cd', 3)).toBe('ab…');
    expect(visibleCut('short', 10)).toBe('short');
  });
});
