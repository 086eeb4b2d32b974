/** Agent ids name files, so every id that comes from outside is checked before it touches a path. */
export const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;
export const AGENT_ID_MAX_LENGTH = 64;

export function isValidAgentId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= AGENT_ID_MAX_LENGTH && AGENT_ID_PATTERN.test(value);
}

/** The Python engine's message, so errors read the same from either server. */
export function invalidAgentIdMessage(value: unknown, field = 'agent_id'): string {
  return `invalid ${field} ${pyRepr(value)}: must match ^[a-z0-9][a-z0-9_-]*$`;
}

/** Python's repr() of a JSON-like value, used where payload texts must match the engine's. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(value);
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const body = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
    return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
  }
  if (Array.isArray(value)) return '[' + value.map(pyRepr).join(', ') + ']';
  if (typeof value === 'object') {
    return (
      '{' +
      Object.entries(value as Record<string, unknown>)
        .map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`)
        .join(', ') +
      '}'
    );
  }
  return String(value);
}
