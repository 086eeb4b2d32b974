/**
 * MCP over stdio: stdout carries only the protocol, every log goes to stderr. Serves both
 * protocol eras (handshake and 2026-07-28) from one factory.
 *
 * Each line from the host is looked at before the SDK reads it, so a line that is not a
 * message is answered as JSON-RPC 2.0 says, not dropped in silence or dumped on stderr: one
 * that is not JSON gets -32700 "Parse error", JSON that is not a JSON-RPC 2.0 object (a number,
 * an array — batches are not part of MCP —, an object without `"jsonrpc": "2.0"`) -32600
 * "Invalid Request", both with id null (or the request's id when it has a valid one), and one
 * stderr line at most.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { McpServer } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { warningLine } from '../core/store/warn.js';

interface StdioHandle {
  close(): Promise<void>;
}

/** A JSON-RPC error answer as one line, for a line that was no message. */
function errorLine(id: unknown, code: number, message: string): string {
  const validId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
  return JSON.stringify({ jsonrpc: '2.0', id: validId, error: { code, message } }) + '\n';
}

/** What to do with one line: pass it to the SDK, or answer it (and say so on stderr). */
function screenLine(line: string): { pass: true } | { pass: false; answer: string; log: string } {
  const text = line.replace(/\r$/, '').replace(/^\ufeff/, '');
  if (text.trim() === '') return { pass: true };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { pass: false, answer: errorLine(null, -32700, 'Parse error'), log: 'a line that is not JSON: Parse error' };
  }
  if (
    !parsed ||
    typeof parsed !== 'object' ||
    Array.isArray(parsed) ||
    (parsed as { jsonrpc?: unknown }).jsonrpc !== '2.0'
  )
    return {
      pass: false,
      answer: errorLine(
        parsed && typeof parsed === 'object' ? (parsed as { id?: unknown }).id : null,
        -32600,
        'Invalid Request',
      ),
      log: 'a line that is not a JSON-RPC 2.0 message: Invalid Request',
    };
  return { pass: true };
}

/** stdin with the lines that are no message answered here (screenLine) and the rest passed on whole. */
function screenedInput(write: (text: string) => void, warn: (message: string) => void): Transform {
  let pending = '';
  // Whole characters only: a chunk may end inside one.
  const decoder = new StringDecoder('utf8');
  const screen = (line: string, out: Transform) => {
    const verdict = screenLine(line);
    if (verdict.pass) out.push(line + '\n');
    else {
      write(verdict.answer);
      warn(verdict.log);
    }
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      pending += decoder.write(chunk);
      let index: number;
      while ((index = pending.indexOf('\n')) >= 0) {
        screen(pending.slice(0, index), this);
        pending = pending.slice(index + 1);
      }
      done();
    },
    flush(done: TransformCallback) {
      pending += decoder.end();
      if (pending) screen(pending, this);
      done();
    },
  });
}

/** An error as one stderr line: the SDK's validation errors span many lines. */
function oneLine(error: Error): string {
  if (error.name === 'ZodError') return 'a message the protocol does not accept was ignored';
  return error.message.split('\n')[0]!;
}

export function runStdio(factory: () => McpServer): StdioHandle {
  const warn = (message: string) => process.stderr.write(warningLine('bourdon: mcp: ', message));
  const input = screenedInput((text) => process.stdout.write(text), warn);
  process.stdin.pipe(input);
  const handle = serveStdio(() => factory(), {
    transport: new StdioServerTransport(input, process.stdout),
    onerror: (error: Error) => warn(oneLine(error)),
  });
  return { close: () => handle.close() };
}
