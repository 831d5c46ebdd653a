import { describe, expect, it } from 'vitest';
import { describeCommand, redactUrls } from '../../../src/apply/lock-file.js';
import { formatDuration, formatSize, parseDuration, parseSize } from '../../../src/feeds/download-limits.js';
import { parseHeader } from '../../../src/feeds/remote-source.js';

describe('--max-download and --download-timeout values', () => {
  it('reads decimal and binary sizes, and durations', () => {
    expect(parseSize('50MB')).toBe(50_000_000);
    expect(parseSize('2GiB')).toBe(2 * 1024 ** 3);
    expect(parseSize('1.5 kb')).toBe(1500);
    expect(parseSize('1500000')).toBe(1_500_000);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('1500ms')).toBe(1500);
    expect(parseDuration('2')).toBe(2000);
  });

  it('refuses anything else with a usage error (exit 2)', () => {
    for (const bad of ['', 'lots', '0', '-5MB', '5 parsecs', '1e3'])
      expect(() => parseSize(bad), bad).toThrow(/--max-download must be a size/);
    for (const bad of ['', 'soon', '0s', '5d'])
      expect(() => parseDuration(bad), bad).toThrow(/--download-timeout must be a duration/);
  });

  it('prints limits back as the user would write them', () => {
    expect(formatSize(50_000_000)).toBe('50 MB');
    expect(formatSize(2 * 1024 ** 3)).toBe('2 GiB');
    expect(formatSize(1234)).toBe('1234 bytes');
    expect(formatDuration(1500)).toBe('1.5 s');
    expect(formatDuration(3_600_000)).toBe('1 h');
  });
});

describe('--header values', () => {
  it('are one line of Latin-1; anything else is refused naming the header, not the value', () => {
    expect(parseHeader('X-Api-Key:  k\u00e9y \t')).toEqual(['X-Api-Key', 'k\u00e9y']);
    for (const value of ['a\nb', 'a\r', '\u2028', 'caf\u0117', 'a\u0000b', 'tab\u007f']) {
      let message = '';
      try {
        parseHeader(`Authorization: SECRET${value}`);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, JSON.stringify(value)).toMatch(/^--header Authorization: the value holds/);
      expect(message).not.toContain('SECRET');
    }
  });
});

describe('URLs in lock files', () => {
  it('are cut to scheme and host', () => {
    expect(redactUrls('a https://u:p@hooks.example.com:8443/T0/B0/x?y=1#z b http://h/ c')).toBe(
      'a https://hooks.example.com:8443/… b http://h c',
    );
    expect(
      describeCommand([
        'import',
        'stock',
        'https://erp.example/s.csv?key=K',
        '--header',
        'X: K',
        '--notify-url=https://h.example/K',
      ]),
    ).toBe('mbulk import stock https://erp.example/… --header *** --notify-url=https://h.example/…');
  });
});
