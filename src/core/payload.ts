/**
 * What every operation answers: a JSON object, exactly as the MCP tool result or `--json`
 * prints it. Each operation names its output type (e.g. `FindEntityOutput`); `Payload` is what
 * any of them is when the adapter does not care which.
 */
import type { ErrorCode } from './errors.js';

export type Payload = Record<string, unknown>;

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

export function isDenial(payload: Payload): payload is DenialPayload {
  return (payload as Partial<DenialPayload>)[DENIED] === true;
}

/** Marks a payload as a denial, in place (see DENIED). */
export function markDenied(payload: Payload): asserts payload is DenialPayload {
  Object.defineProperty(payload, DENIED, { value: true });
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
