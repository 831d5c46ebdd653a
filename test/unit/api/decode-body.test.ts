import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeBody, UnsupportedEncodingError } from '../../../src/api/decode-body.js';

const text = JSON.stringify({ name: 'Kopi & Kain ☕', note: 'ü'.repeat(2000) });
const bytes = Buffer.from(text, 'utf8');

describe('decodeBody', () => {
  it.each([
    ['gzip', gzipSync(bytes)],
    ['x-gzip', gzipSync(bytes)],
    ['deflate', deflateSync(bytes)],
    ['br', brotliCompressSync(bytes)],
  ])('undoes %s', async (coding, body) => {
    expect((await decodeBody(body, [coding])).toString('utf8')).toBe(text);
  });

  it('reads "deflate" sent raw, without the zlib wrapper, as fetch does', async () => {
    expect((await decodeBody(deflateRawSync(bytes), ['deflate'])).toString('utf8')).toBe(text);
  });

  it('undoes several codings in the reverse of the order the header lists them', async () => {
    // Content-Encoding: gzip, br  means gzip was applied first, then br.
    expect((await decodeBody(brotliCompressSync(gzipSync(bytes)), ['gzip', 'br'])).toString('utf8')).toBe(
      text,
    );
  });

  it('refuses a coding it did not ask for, naming it', async () => {
    await expect(decodeBody(bytes, ['zstd'])).rejects.toThrow(UnsupportedEncodingError);
    await expect(decodeBody(bytes, ['zstd'])).rejects.toThrow('content-encoding "zstd"');
  });

  it('fails on a body that is not what its header says', async () => {
    await expect(decodeBody(bytes, ['gzip'])).rejects.toThrow();
  });
});
