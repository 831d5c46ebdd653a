// Undoes the Content-Encoding of an API answer. Its own module so that node:zlib loads only when a
// server actually compresses (src/api/transport.ts imports it on demand).
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, inflateRaw } from 'node:zlib';
import { MbulkError } from '../errors/mbulk-error.js';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);
const inflateRawAsync = promisify(inflateRaw);
const brotliAsync = promisify(brotliDecompress);

/**
 * A Content-Encoding the client did not ask for and cannot undo: the API cannot be used as it
 * answers. Category `unreachable` (exit code 4), as the connection error the client reports it as.
 */
export class UnsupportedEncodingError extends MbulkError {
  static override readonly errorName: string = 'UnsupportedEncodingError';
  readonly code = 'MBULK_UNSUPPORTED_CONTENT_ENCODING';
  constructor(readonly coding: string) {
    super('unreachable', `the server answered with content-encoding "${coding}", which mbulk cannot read`);
  }
}

/**
 * Undoes `codings` on `body` (in the order the server applied them, as in the Content-Encoding
 * header): the bytes as sent before compression. The transport reads them as UTF-8 text.
 */
export async function decodeBody(body: Buffer, codings: readonly string[]): Promise<Buffer> {
  let bytes = body;
  for (const coding of [...codings].reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip') bytes = await gunzipAsync(bytes);
    // "deflate" is meant to be zlib-wrapped (RFC 9110 §8.4.1.2); some servers send it raw. A zlib
    // stream's first byte names the deflate method in its low nibble (RFC 1950), as fetch checks.
    else if (coding === 'deflate') {
      const zlibWrapped = ((bytes[0] ?? 0) & 0x0f) === 0x08;
      bytes = await (zlibWrapped ? inflateAsync(bytes) : inflateRawAsync(bytes));
    } else if (coding === 'br') bytes = await brotliAsync(bytes);
    else throw new UnsupportedEncodingError(coding);
  }
  return bytes;
}
