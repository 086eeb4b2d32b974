/**
 * Visibility levels (spec §3): rows are public, team or private, and a read at one level sees
 * rows at or below it. The store owns them because it filters rows by them; trust decides
 * which level a caller reads at (trust/access.ts).
 *
 * A row's level is decided here and only here (`rowLevel`): its own label, read through its
 * manifest's `visibility_policy` (D19). The store's rows, the manifest resource, a commit's
 * ceiling, the version diffs and a sync push all call it, so they cannot disagree.
 */
export const ACCESS_LEVELS = ['public', 'team', 'private'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

const RANK: Record<AccessLevel, number> = { public: 0, team: 1, private: 2 };

export function isAccessLevel(value: unknown): value is AccessLevel {
  return typeof value === 'string' && (ACCESS_LEVELS as readonly string[]).includes(value);
}

/**
 * A label's level, the row's tags and its manifest's policy aside. Absent (undefined or null)
 * is null: the policy's default decides. Labels are trimmed and read case-insensitively
 * (`TEAM`, `' team '` → team). A value we do not know (`internal`, a number, an empty string)
 * is private: an unknown label never widens who can read the row (D8: the engine reads unknown
 * labels as public).
 */
export function labelLevel(value: unknown): AccessLevel | null {
  if (value === undefined || value === null) return null;
  const label = typeof value === 'string' ? value.trim().toLowerCase() : value;
  // The constant rather than the row's own copy of it: a server holds one per row.
  return ACCESS_LEVELS.find((level) => level === label) ?? 'private';
}

/**
 * A manifest's `visibility_policy` (L5 schema) as reads apply it: the level of a row that
 * declares none, and the tags that make a row private (over its own label) or team (when it
 * declares none). Tags are compared trimmed and case-folded.
 */
export interface VisibilityPolicy {
  readonly default: AccessLevel;
  readonly privateTags: ReadonlySet<string>;
  readonly teamTags: ReadonlySet<string>;
}

const NO_TAGS: ReadonlySet<string> = new Set();

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A list field's items as folded text: a scalar is a one-item list (D1), numbers and true/false their text. */
function foldedTags(value: unknown): string[] {
  const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  const out: string[] = [];
  for (const item of items)
    if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean')
      out.push(String(item).trim().toLowerCase());
  return out;
}

/**
 * The policy a manifest declares, or null when it declares none (every unlabelled row public,
 * as the engine reads every manifest). A policy that is not a mapping, or whose `default` is a
 * label we do not know, makes unlabelled rows private: a policy meant to restrict never widens
 * (as D8 reads labels). A `default` left out is public, the L5 schema's default.
 */
export function policyOf(doc: unknown): VisibilityPolicy | null {
  if (!isMapping(doc)) return null;
  const raw = doc.visibility_policy;
  if (raw === undefined || raw === null) return null;
  if (!isMapping(raw)) return { default: 'private', privateTags: NO_TAGS, teamTags: NO_TAGS };
  const privateTags = foldedTags(raw.private_tags);
  const teamTags = foldedTags(raw.team_tags);
  return {
    default: labelLevel(raw.default) ?? 'public',
    privateTags: privateTags.length ? new Set(privateTags) : NO_TAGS,
    teamTags: teamTags.length ? new Set(teamTags) : NO_TAGS,
  };
}

/**
 * A row's level (an entity, session or note as written), under its manifest's policy (null: no
 * policy), in the L5 schema's order: a tag in `private_tags` makes it private whatever its
 * label; else its own label (labelLevel); else a tag in `team_tags` makes it team; else the
 * policy's default; else public.
 */
export function rowLevel(row: unknown, policy: VisibilityPolicy | null): AccessLevel {
  const label = isMapping(row) ? labelLevel(row.visibility) : null;
  if (policy === null) return label ?? 'public';
  const tags = isMapping(row) && (policy.privateTags.size || policy.teamTags.size) ? foldedTags(row.tags) : [];
  if (tags.some((tag) => policy.privateTags.has(tag))) return 'private';
  if (label !== null) return label;
  if (tags.some((tag) => policy.teamTags.has(tag))) return 'team';
  return policy.default;
}

export function canSee(level: AccessLevel, visibility: AccessLevel): boolean {
  return RANK[visibility] <= RANK[level];
}

export function lowerLevel(a: AccessLevel, b: AccessLevel): AccessLevel {
  return RANK[a] <= RANK[b] ? a : b;
}
