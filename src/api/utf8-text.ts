const utf8 = new TextDecoder();

/** Bytes of an answer read as text: UTF-8, a byte order mark dropped (as fetch's text()). */
export function utf8Text(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}
