/**
 * Visibility levels (spec §3): rows are public, team or private, and a read at one level sees
 * rows at or below it. The store owns them because it filters rows by them; trust decides
 * which level a caller reads at (trust/access.ts).
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
