import type { ErrorCode } from './errors.js';

/**
 * The answer of any operation: a JSON object, exactly as the MCP tool result or `--json` prints
 * it. Code that knows which operation answered uses its named output type (`FindEntityOutput`,
 * `CommitOutput`, …); this is only for code that handles every answer alike: the list of all
 * operations and the MCP registration loop over it, a peer's answer before its tool's model
 * reads it, the keys a denial adds.
 */
export type AnyAnswer = Record<string, unknown>;

/** The arguments of any tool call, as a peer is asked them (`PeerFanout.call`). */
export type ToolArguments = Record<string, unknown>;

/**
 * A failure the engine answers as data: its envelope with an `error` string (the conformance
 * fixtures fix these shapes, so they are outputs, not exceptions). An operation's output is
 * the union of its answer and its failures; `failed` tells them apart and narrows to either.
 */
export type Failure = { error: string };

/** The answer's own envelope carrying an error (the engine echoes the arguments, lists empty). */
export type Failed<T> = T & Failure;

type KeysOfUnion<T> = T extends unknown ? keyof T : never;

/**
 * A union whose members each list the others' keys as absent (`?: undefined`), so a reader may
 * ask any member for any key (`output.version` is `number | undefined`) and a field such as
 * `error` or `staged` tells the members apart.
 */
export type OneOf<T, All = T> = T extends unknown
  ? T & { [K in Exclude<KeysOfUnion<All>, keyof T>]?: undefined }
  : never;

export function failed<O extends object>(output: O): output is Extract<O, Failure> {
  return 'error' in output && typeof output.error === 'string';
}

/**
 * Marks a denial payload so adapters can tell one by its shape, not its text: a non-enumerable
 * symbol key, which JSON never prints, so the payload on the wire is unchanged. A spread copy
 * drops it: add fields with Object.assign onto the denial itself.
 */
const DENIED: unique symbol = Symbol('bourdon.denied');

/** The payload of a call the caller may not make (see trust/policy.ts `denialPayload`). */
export type DenialPayload = {
  error: string;
  op: string;
  agent: string;
  tier: string;
  detail: string;
  readonly [DENIED]: true;
};

export function isDenial(payload: object): payload is DenialPayload {
  return (payload as Partial<DenialPayload>)[DENIED] === true;
}

/** Marks a payload as a denial, in place (see DENIED). */
export function markDenied(payload: object): asserts payload is DenialPayload {
  Object.defineProperty(payload, DENIED, { value: true });
}

/**
 * Keys whose number the engine writes as a Python float in every answer (`round(x, 1)`), so
 * `json.dumps` prints a whole value as `412.0`; JavaScript would print `412`.
 */
const FLOAT_KEYS: ReadonlySet<string> = new Set(['recognition_latency_us']);

/**
 * The keys one answer holds as Python floats besides FLOAT_KEYS (a turn brief's scores), kept
 * beside the payload as the denial marker is: a non-enumerable symbol, so the answer's JSON and
 * its structured content are unchanged. Only an answer whose keys are all its own is marked
 * (no row of a caller's data is copied into it under its own keys).
 */
const ANSWER_FLOAT_KEYS: unique symbol = Symbol('bourdon.float-keys');

/** Marks `payload`'s whole numbers under `keys` as Python floats, in place, and returns it. */
export function withPythonFloats<P extends object>(payload: P, keys: ReadonlySet<string>): P {
  Object.defineProperty(payload, ANSWER_FLOAT_KEYS, { value: keys });
  return payload;
}

/**
 * A payload as JSON, as the MCP text and `--json` print it: JSON.stringify's text, with the
 * engine's number forms (a whole number under a float key keeps its `.0`). JSON.stringify runs
 * without a replacer (V8's fast path: a replacer is a call per value, most of the cost of a
 * search's 8 KB answer); the text is scanned for float forms only when it names a float key
 * (`"key"`, as JSON writes it), which every whole number under one needs, and the scan itself
 * is exact (it skips strings), so the text is the same as a replacer's.
 */
export function payloadJson(payload: unknown, indent?: number): string {
  const own =
    payload !== null && typeof payload === 'object'
      ? (payload as { [ANSWER_FLOAT_KEYS]?: ReadonlySet<string> })[ANSWER_FLOAT_KEYS]
      : undefined;
  const text = JSON.stringify(payload, null, indent);
  if (typeof text !== 'string') return text;
  let named = false;
  for (const keys of own ? [FLOAT_KEYS, own] : [FLOAT_KEYS])
    for (const key of keys) if (!named && text.includes(JSON.stringify(key))) named = true;
  if (!named) return text;
  return withFloatForms(text, own ? new Set([...FLOAT_KEYS, ...own]) : FLOAT_KEYS);
}

/**
 * Adds `.0` to each integer literal that is the value of a float key. The text is scanned as
 * JSON (strings skipped whole), so a string that merely contains `"recognition_latency_us":1`
 * is never touched.
 */
function withFloatForms(text: string, floatKeys: ReadonlySet<string>): string {
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    if (text[i] !== '"') {
      i++;
      continue;
    }
    // A string: find its end (a quote no backslash escapes).
    let end = i + 1;
    while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
    const key = text.slice(i + 1, end);
    i = end + 1;
    if (!floatKeys.has(key)) continue;
    const value = /^: ?(-?\d+)(?![\d.eE])/.exec(text.slice(i, i + 40));
    if (!value) continue;
    const at = i + value[0].length;
    out += text.slice(copied, at) + '.0';
    copied = at;
    i = at;
  }
  return out + text.slice(copied);
}

/**
 * The code of a failure answered as data, kept beside the payload as the denial marker is (a
 * non-enumerable symbol key, so the engine's JSON is unchanged): adapters read the exit status
 * and HTTP status from it (errors.ts FAILURES), never from the `error` text.
 */
const FAILURE_CODE: unique symbol = Symbol('bourdon.failure-code');

/** Gives a failure payload its code, in place, and returns it (see FAILURE_CODE). */
export function coded<P extends Failure>(payload: P, code: ErrorCode): P {
  Object.defineProperty(payload, FAILURE_CODE, { value: code });
  return payload;
}

/**
 * The code of a failure payload: a denial's is `access_denied`; one given with coded() keeps
 * its own; any other the engine answers as data is an argument it could not use (`invalid_input`).
 */
export function failureCode(payload: Failure): ErrorCode {
  if (isDenial(payload)) return 'access_denied';
  return (payload as { [FAILURE_CODE]?: ErrorCode })[FAILURE_CODE] ?? 'invalid_input';
}
