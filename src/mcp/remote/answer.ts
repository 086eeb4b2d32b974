/** A peer's tool result read as the engine's own peer client reads it, through the answer model. */
import type { AnyAnswer } from '../../core/payload.js';
import { readPeerAnswer } from '../../core/operations/peer-answers.js';
import { UnusableAnswer } from '../../core/federation/remote-failure.js';

/**
 * The payload of a peer's tool result: the first text item, JSON, read through the answer
 * model (readPeerAnswer), values that do not fit left out. An answer with nothing to read, a
 * refusal or an error result is thrown as the peer's error (UnusableAnswer), one line.
 */
export function answerPayload(tool: string, result: { content?: unknown; isError?: unknown }): AnyAnswer {
  return readAnswer(tool, result).payload;
}

/** answerPayload, with the line saying what was left out of the answer (null when nothing). */
export function readAnswer(
  tool: string,
  result: { content?: unknown; isError?: unknown },
): { payload: AnyAnswer; leftOut: string | null } {
  const first: unknown = Array.isArray(result.content) ? result.content[0] : undefined;
  const text = first && typeof first === 'object' && 'text' in first ? first.text : undefined;
  if (typeof text !== 'string') throw new UnusableAnswer(`peer answered ${tool} without a text result`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new UnusableAnswer(`peer answered ${tool} with text that is not JSON`);
  }
  const read = readPeerAnswer(tool, raw);
  if ('error' in read) throw new UnusableAnswer(read.error);
  if (result.isError) throw new UnusableAnswer(`peer answered ${tool} with an error result`);
  return read;
}
