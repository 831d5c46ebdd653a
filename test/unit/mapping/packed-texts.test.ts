import { describe, expect, it } from 'vitest';
import { PackedTexts } from '../../../src/mapping/packed-texts.js';

describe('PackedTexts', () => {
  it('gives back each text as it was kept, and lets a block go with its last text', () => {
    const texts = new PackedTexts();
    const samples = [
      '',
      'plain',
      'caf\u00e9 \u{1f600} \u4e2d',
      'x'.repeat(3 << 20),
      ...Array.from({ length: 5000 }, (_, i) => `${i}:${'y'.repeat(500)}`),
    ];
    const handles = samples.map((t) => texts.add(t));
    const held = texts.heldBytes;
    expect(held).toBeGreaterThan(5 << 20);
    samples.forEach((t, i) => expect(texts.take(handles[i] as number)).toBe(t));
    // Every block but the one being filled is let go.
    expect(texts.heldBytes).toBeLessThanOrEqual(1 << 20);
    expect(() => texts.take(handles[1] as number)).toThrow(/already taken/);
  });
});
