/**
 * Visibility and access (spec §3). Rows are public, team or private; a query runs at one
 * level and sees rows at or below it. A caller may be capped (remote HTTP callers and
 * quarantined members never see private rows), whatever it asks for.
 */
// The levels themselves belong to the store, which filters rows by them (store/visibility.ts).
import { isAccessLevel, lowerLevel, type AccessLevel } from '../store/visibility.js';

export {
  ACCESS_LEVELS,
  canSee,
  isAccessLevel,
  labelLevel,
  lowerLevel,
  policyOf,
  rowLevel,
  type AccessLevel,
  type VisibilityPolicy,
} from '../store/visibility.js';

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
