/**
 * The zod builders the read and write operations' input schemas are made of: arguments read
 * the way the engine's validator (pydantic, lax mode) reads them. Hosts and models send `"5"` for 5 and `"true"` for true, and an agent that works with the
 * engine must work here. Only the coercions pydantic makes; anything else is still refused.
 * The coercion runs before validation, so tools/list shows the plain types the engine shows.
 * A leaf of the core root: imports no part of core.
 */
import * as z from 'zod';
import { lazy } from './lazy.js';

/** pydantic's lax int: an integer, or a string of one (surrounding spaces allowed). */
export function laxInteger(value: unknown): unknown {
  return typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value.trim()) : value;
}

const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

/** pydantic's lax bool: a boolean, 0 or 1, or one of its true/false words in any case. */
function laxBoolean(value: unknown): unknown {
  if (value === 0 || value === 1) return value === 1;
  if (typeof value !== 'string') return value;
  const word = value.trim().toLowerCase();
  return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : value;
}

/** An integer argument, lax as the engine's; `default: null` in tools/list, as the engine's. */
export function optionalInteger(description?: string) {
  const inner = z.number().int().nullable().default(null);
  return z.preprocess(laxInteger, description ? inner.describe(description) : inner);
}

/** A required integer argument, lax as the engine's. */
export function requiredInteger() {
  return z.preprocess(laxInteger, z.number().int());
}

/** An integer argument with a default, lax as the engine's. */
export function integerWithDefault(fallback: number) {
  return z.preprocess(laxInteger, z.number().int().default(fallback));
}

/** A boolean argument with a default, lax as the engine's. */
export function laxFlag(fallback: boolean, description: string) {
  return z.preprocess(laxBoolean, z.boolean().default(fallback).describe(description));
}

/** An optional text argument; `default: null` in tools/list, as the engine declares it. */
export const optionalText = lazy(() => z.string().nullable().default(null));
