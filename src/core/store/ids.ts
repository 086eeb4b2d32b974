/** Agent ids name files, so every id that comes from outside is checked before it touches a path. */
import { pyRepr } from '../python-str.js';

export const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;
const AGENT_ID_MAX_LENGTH = 64;

export function isValidAgentId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= AGENT_ID_MAX_LENGTH && AGENT_ID_PATTERN.test(value);
}

/** The Python engine's message, so errors read the same from either server. */
export function invalidAgentIdMessage(value: unknown, field = 'agent_id'): string {
  return `invalid ${field} ${pyRepr(value)}: must match ^[a-z0-9][a-z0-9_-]*$`;
}

/**
 * The write-side refusal: the engine's words, plus why a read of the same id may succeed (a
 * manifest may declare any `agent.id` and is served as such; only strict ids are ever written).
 */
export function invalidWriteAgentIdMessage(value: unknown): string {
  const served = isServedAgentId(value)
    ? '; a manifest that declares this id is read, but writes need a strict id'
    : '';
  return `${invalidAgentIdMessage(value)}${served}`;
}

/** Longest `agent.id` a manifest may declare and still be served (reads only). */
const SERVED_AGENT_ID_MAX_LENGTH = 128;

/**
 * An `agent.id` a manifest may declare and be served under on every read surface, as the
 * engine serves it (`Agent-B`), though it fails the strict pattern. Such ids are only map keys:
 * they never name a file (writes, history and staging take strict ids only). Still, anything
 * that could read as a path or hide in a log line (a slash, a backslash, `..`, control
 * characters, surrounding spaces) is refused: fail closed.
 */
export function isServedAgentId(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= SERVED_AGENT_ID_MAX_LENGTH &&
    value === value.trim() &&
    !value.includes('..') &&
    !/[/\\\p{Cc}\p{Cf}]/u.test(value)
  );
}
