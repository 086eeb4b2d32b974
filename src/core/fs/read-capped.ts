/**
 * Reading a whole stream under a size cap, for the CLI's commit input (a file or stdin) and the
 * review page's form posts.
 */

/**
 * Reads `stream` to its end, keeping at most `limit` bytes: null as soon as more arrive, the
 * excess never buffered. The stream is left flowing, so an HTTP request drains and can still be
 * answered; a caller reading a file destroys it. Rejects with the stream's own error.
 */
export function readCapped(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    stream.on('data', (chunk: Buffer | string) => {
      if (over) return;
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > limit) {
        over = true;
        chunks = [];
        resolve(null);
        return;
      }
      chunks.push(buffer);
    });
    stream.on('end', () => resolve(over ? null : Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}
