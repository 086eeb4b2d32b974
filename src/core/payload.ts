/**
 * What every operation answers: a JSON object, exactly as the MCP tool result or `--json`
 * prints it. Failures the engine expects inside the payload carry an `error` string.
 */
export type Payload = Record<string, unknown>;

/**
 * Marks a denial payload so adapters can tell one by its shape, not its text: a non-enumerable
 * symbol key, which JSON never prints, so the payload on the wire is unchanged. A spread copy
 * drops it: add fields with Object.assign onto the denial itself.
 */
const DENIED: unique symbol = Symbol('bourdon.denied');

/** The payload of a call the caller may not make (see trust/policy.ts `denialPayload`). */
export type DenialPayload = Payload & { readonly [DENIED]: true };

export function isDenial(payload: Payload): payload is DenialPayload {
  return (payload as Partial<DenialPayload>)[DENIED] === true;
}

/** Marks a payload as a denial, in place (see DENIED). */
export function markDenied(payload: Payload): asserts payload is DenialPayload {
  Object.defineProperty(payload, DENIED, { value: true });
}
