/**
 * Decoding a native file's bytes as the engine's Python reads them: newlines as text mode
 * normalises them, and whether a lenient decode had to replace invalid UTF-8 (to warn of it).
 */

const REPLACEMENT = '\uFFFD';
const ENCODED_REPLACEMENT = Buffer.from(REPLACEMENT, 'utf8');

/**
 * Whether decoding `bytes` (after the `tail` of the bytes before it) replaced invalid UTF-8: the
 * decoded text holds more U+FFFD than the bytes spelled out.
 */
export function replacedInvalidBytes(decoded: string, bytes: Buffer, tail: Buffer = Buffer.alloc(0)): boolean {
  if (!decoded.includes(REPLACEMENT)) return false;
  const raw = Buffer.concat([tail, bytes]);
  let spelled = 0;
  for (let at = raw.indexOf(ENCODED_REPLACEMENT); at !== -1; at = raw.indexOf(ENCODED_REPLACEMENT, at + 3))
    spelled += 1;
  return decoded.split(REPLACEMENT).length - 1 > spelled;
}

/** Python's text mode: \r\n and lone \r read as \n. */
export function normaliseNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}
