/**
 * Visibility and access (spec §3). Rows are public, team or private; a query runs at one
 * level and sees rows at or below it. A caller may be capped (remote HTTP callers and
 * quarantined members never see private rows), whatever it asks for.
 */
export const ACCESS_LEVELS = ['public', 'team', 'private'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

const RANK: Record<AccessLevel, number> = { public: 0, team: 1, private: 2 };

export function isAccessLevel(value: unknown): value is AccessLevel {
  return typeof value === 'string' && (ACCESS_LEVELS as readonly string[]).includes(value);
}

/**
 * A row's visibility. Absent means public (the L5 default). Labels are trimmed and read
 * case-insensitively (`TEAM`, `' team '` → team). A value we do not know (`internal`, a
 * number, an empty string) is treated as private: an unknown label never widens who can read
 * the row (D8: the engine reads unknown labels as public).
 */
export function rowVisibility(value: unknown): AccessLevel {
  if (value === undefined || value === null) return 'public';
  const label = typeof value === 'string' ? value.trim().toLowerCase() : value;
  // The constant rather than the row's own copy of it: a server holds one per row.
  return ACCESS_LEVELS.find((level) => level === label) ?? 'private';
}

export function canSee(level: AccessLevel, visibility: AccessLevel): boolean {
  return RANK[visibility] <= RANK[level];
}

export function lowerLevel(a: AccessLevel, b: AccessLevel): AccessLevel {
  return RANK[a] <= RANK[b] ? a : b;
}

interface AccessRequest {
  access_level?: string | null;
  include_private?: boolean | null;
}

export interface ResolvedAccess {
  /** What the payload echoes: the level as asked (or defaulted), as the Python engine does. */
  echoed: string;
  /** The level rows are filtered at, after include_private and the caller's ceiling. */
  effective: AccessLevel;
  error?: string;
}

/** The environment default, where an empty BOURDON_DEFAULT_ACCESS_LEVEL counts as unset. */
export function envDefaultLevel(env: Record<string, string | undefined>): string | undefined {
  const value = env.BOURDON_DEFAULT_ACCESS_LEVEL;
  return value === undefined || value === '' ? undefined : value;
}

export function resolveAccess(
  request: AccessRequest,
  toolDefault: AccessLevel,
  env: Record<string, string | undefined>,
  ceiling: AccessLevel,
): ResolvedAccess {
  const echoed = request.access_level ?? envDefaultLevel(env) ?? toolDefault;
  // Levels are read case-insensitively and trimmed, as the engine does; the echo stays as given.
  // An unsupported level is an error even with include_private: the request fails closed.
  const level = echoed.trim().toLowerCase();
  if (!isAccessLevel(level)) {
    return { echoed, effective: 'public', error: `unsupported access_level: ${echoed} (use public, team or private)` };
  }
  if (request.include_private === true) return { echoed, effective: lowerLevel('private', ceiling) };
  return { echoed, effective: lowerLevel(level, ceiling) };
}
