/**
 * What happens to every participant's manifest before anything is written, once for all
 * (conformance/participants/README.md, "Output serialisation"): the federation filter (rows
 * with a private tag or a private visibility are dropped), the access filter at the export's
 * level, the redaction of every exported text that holds a secret's value (core/trust/redaction.ts:
 * a key, a token, a PEM block, a password assigned never reaches the library; prose that only
 * names one, which the engine keeps, stays — each participant scrubs as the engine does), empty
 * values left out, and `known_entities` / `recent_sessions`
 * re-added as lists.
 */
import { canSee, rowVisibility, type AccessLevel } from '../core/trust/access.js';
import { holdsSecretValue, REDACTED } from '../core/trust/redaction.js';
import type { ManifestData } from './participant.js';

/** What finishing did, for `--json` and the tests. */
export interface FinishCounts {
  entities: number;
  sessions: number;
  /** Rows dropped by the federation and access filters. */
  filtered: number;
  /** Texts replaced because they looked like credentials (entities named so are dropped). */
  redacted: number;
}

type Row = Record<string, unknown>;

function isRow(value: unknown): value is Row {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || (Array.isArray(value) && value.length === 0);
}

/** A copy without the keys whose value is null or an empty list. */
function withoutEmpty(row: Row): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) if (!isEmpty(value)) out[key] = value;
  return out;
}

/** Whether the federation filter keeps a row: no private tag, and (without one) not private itself. */
function federationKeeps(row: Row, privateTags: ReadonlySet<string>): boolean {
  const tags = Array.isArray(row.tags) ? row.tags : [];
  if (tags.some((tag) => typeof tag === 'string' && privateTags.has(tag))) return false;
  return row.visibility !== 'private';
}

/** Redacts a text field or each text of a list field in place; returns how many were replaced. */
function redactField(row: Row, key: string): number {
  const value = row[key];
  if (typeof value === 'string') {
    if (!holdsSecretValue(value)) return 0;
    row[key] = REDACTED;
    return 1;
  }
  if (!Array.isArray(value)) return 0;
  let replaced = 0;
  row[key] = value.map((item: unknown) => {
    if (typeof item !== 'string' || !holdsSecretValue(item)) return item;
    replaced += 1;
    return REDACTED;
  });
  return replaced;
}

const ENTITY_TEXT_FIELDS = ['type', 'aliases', 'summary', 'tags'];
const SESSION_TEXT_FIELDS = ['cwd', 'project_focus', 'key_actions', 'files_touched'];

/**
 * Applies the filters and the redaction to a participant's manifest, returning a new one (the
 * input is not changed). Rows are dropped before they are redacted, so a private row's text
 * is never even looked at twice.
 */
export function finishManifest(
  manifest: ManifestData,
  level: AccessLevel,
): { manifest: ManifestData; counts: FinishCounts } {
  const counts: FinishCounts = { entities: 0, sessions: 0, filtered: 0, redacted: 0 };
  const policy = isRow(manifest.visibility_policy) ? manifest.visibility_policy : {};
  const privateTags = new Set(
    (Array.isArray(policy.private_tags) ? policy.private_tags : []).filter(
      (tag): tag is string => typeof tag === 'string',
    ),
  );
  const keep = (row: Row, federated: boolean) => {
    const kept = (!federated || federationKeeps(row, privateTags)) && canSee(level, rowVisibility(row.visibility));
    if (!kept) counts.filtered += 1;
    return kept;
  };

  const entities: Row[] = [];
  for (const raw of Array.isArray(manifest.known_entities) ? manifest.known_entities : []) {
    if (!isRow(raw) || !keep(raw, true)) continue;
    const row = withoutEmpty({ ...raw });
    // An entity named like a credential cannot be shown under another name: it is left out.
    if (typeof row.name === 'string' && holdsSecretValue(row.name)) {
      counts.redacted += 1;
      continue;
    }
    for (const field of ENTITY_TEXT_FIELDS) counts.redacted += redactField(row, field);
    entities.push(row);
  }
  const sessions: Row[] = [];
  for (const raw of Array.isArray(manifest.recent_sessions) ? manifest.recent_sessions : []) {
    if (!isRow(raw) || !keep(raw, false)) continue;
    const row = withoutEmpty({ ...raw });
    for (const field of SESSION_TEXT_FIELDS) counts.redacted += redactField(row, field);
    sessions.push(row);
  }
  counts.entities = entities.length;
  counts.sessions = sessions.length;

  // The top level in the participant's key order, the row lists where they were; empty
  // values left out, then the two row lists re-added (as [] when empty) after everything else.
  const out: ManifestData = {};
  for (const [key, value] of Object.entries(manifest)) {
    if (key === 'known_entities') {
      if (entities.length) out.known_entities = entities;
    } else if (key === 'recent_sessions') {
      if (sessions.length) out.recent_sessions = sessions;
    } else if (key === 'visibility_policy' && isRow(value)) out.visibility_policy = withoutEmpty(value);
    else if (!isEmpty(value)) out[key] = value;
  }
  out.known_entities ??= [];
  out.recent_sessions ??= [];
  return { manifest: out, counts };
}
