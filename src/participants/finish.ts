/**
 * What happens to every participant's manifest before anything is written, once for all
 * (conformance/participants/README.md, "Output serialisation"): the federation filter (rows
 * with a private tag or a private visibility are dropped), the access filter at the export's
 * level, the redaction of every exported text (core/trust/redaction.ts: a secret value never
 * reaches the library; the prose around it, and prose that only names a credential, is kept —
 * each participant has already scrubbed its texts as the engine does), empty values left out,
 * and `known_entities` / `recent_sessions` re-added as lists.
 */
import { canSee, policyOf, rowLevel, type AccessLevel } from '../core/trust/access.js';
import { containsSecret, REDACTED, redactSecrets } from '../core/trust/redaction.js';
import { MAX_MANIFEST_BYTES } from '../core/store/library.js';
import { stringifyYamlPiecewise } from '../core/store/yaml-proof.js';
import type { ManifestData } from './kit/participant.js';
import { codePointLength, codePointPrefix } from './kit/scrub.js';

/** Longest entity name exported, in code points (the summaries' cut): a 200,000-character name is cut here. */
export const MAX_NAME_CHARS = 500;
/** Longest other text exported: a participant's own cuts are shorter; this bounds one that forgets. */
const MAX_TEXT_CHARS = 2_000;

/** What finishing did, for `--json` and the tests. */
export interface FinishCounts {
  entities: number;
  sessions: number;
  /** Rows dropped by the federation and access filters. */
  filtered: number;
  /** Texts whose secret values were redacted (entities whose name holds one are dropped). */
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

/** `text` cut to `limit` code points (the last one an ellipsis) when longer. */
function capText(text: string, limit: number): string {
  if (text.length <= limit || codePointLength(text) <= limit) return text;
  return codePointPrefix(text, limit - 1) + '…';
}

/** Redacts the secret values of a text field, or of each text of a list field, in place; returns how many texts changed. */
function redactField(row: Row, key: string): number {
  const value = row[key];
  if (typeof value === 'string') {
    const redacted = redactSecrets(capText(value, MAX_TEXT_CHARS));
    row[key] = redacted;
    return redacted === value ? 0 : 1;
  }
  if (!Array.isArray(value)) return 0;
  let replaced = 0;
  row[key] = value.map((item: unknown) => {
    if (typeof item !== 'string') return item;
    const redacted = redactSecrets(capText(item, MAX_TEXT_CHARS));
    if (redacted !== item) replaced += 1;
    return redacted;
  });
  return replaced;
}

/** Redacts every text field of a row but its name (a participant may add fields; none escapes). */
function redactRow(row: Row): number {
  let replaced = 0;
  for (const key of Object.keys(row)) if (key !== 'name') replaced += redactField(row, key);
  return replaced;
}

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
  // Each row at the level the library will read it at: its label under the policy (D19).
  const readPolicy = policyOf(manifest);
  const keep = (row: Row, federated: boolean) => {
    const kept = (!federated || federationKeeps(row, privateTags)) && canSee(level, rowLevel(row, readPolicy));
    if (!kept) counts.filtered += 1;
    return kept;
  };

  const entities: Row[] = [];
  for (const raw of Array.isArray(manifest.known_entities) ? manifest.known_entities : []) {
    if (!isRow(raw) || !keep(raw, true)) continue;
    const row = withoutEmpty({ ...raw });
    if (typeof row.name === 'string') row.name = capText(row.name, MAX_NAME_CHARS);
    // An entity whose name holds a secret cannot be shown under another name: it is left out;
    // so is one whose name a participant's scrubber already replaced whole (codex's thread
    // titles, as the engine scrubs them): nameless, it could only be found by the placeholder.
    if (typeof row.name === 'string' && (containsSecret(row.name) || row.name.trim() === REDACTED)) {
      counts.redacted += 1;
      continue;
    }
    counts.redacted += redactRow(row);
    entities.push(row);
  }
  const sessions: Row[] = [];
  for (const raw of Array.isArray(manifest.recent_sessions) ? manifest.recent_sessions : []) {
    if (!isRow(raw) || !keep(raw, false)) continue;
    const row = withoutEmpty({ ...raw });
    counts.redacted += redactRow(row);
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

/** What `fitManifest` left out to fit the size limit. */
export interface LeftOut {
  entities: number;
  sessions: number;
}

/** The date a row is ranked by: a session's date, an entity's last touch or start; '' when none. */
function rowDate(row: Row): string {
  for (const key of ['date', 'last_touched', 'valid_from']) if (typeof row[key] === 'string') return row[key];
  return '';
}

/**
 * A finished manifest that serialises within `limit` bytes (the library's manifest limit): when
 * it would not, the newest rows that fit are kept — dated rows newest first, then undated ones
 * in their participant's order — and the others are left out and counted. Each list keeps its
 * order. Returns the manifest unchanged when it fits, and its YAML (`stringifyYaml`), which
 * sizing it made (writing it need not make it again). Each row is serialised once, however many
 * selections are tried (`stringifyYamlPiecewise`).
 */
export function fitManifest(
  manifest: ManifestData,
  limit: number = MAX_MANIFEST_BYTES,
): { manifest: ManifestData; leftOut: LeftOut; yaml: string | null } {
  const rowTexts = new WeakMap<object, string>();
  const yamlOf = (data: ManifestData) => stringifyYamlPiecewise(data, rowTexts);
  const size = (data: ManifestData) => Buffer.byteLength(yamlOf(data));
  const whole = yamlOf(manifest);
  if (Buffer.byteLength(whole) <= limit) return { manifest, leftOut: { entities: 0, sessions: 0 }, yaml: whole };
  const entities = (manifest.known_entities ?? []) as Row[];
  const sessions = (manifest.recent_sessions ?? []) as Row[];
  const ranked = [...sessions, ...entities]
    .map((row, order) => ({ row, order, date: rowDate(row), bytes: Buffer.byteLength(JSON.stringify(row)) + 8 }))
    .sort((a, b) => (a.date === b.date ? a.order - b.order : a.date < b.date ? 1 : -1));
  const base = size({ ...manifest, known_entities: [], recent_sessions: [] });
  // The JSON size of a row approximates its YAML: shrink the budget until the result fits.
  for (let budget = (limit - base) * 0.9; budget > 0; budget *= 0.8) {
    const kept = new Set<Row>();
    let used = 0;
    for (const item of ranked) {
      if (used + item.bytes > budget) continue;
      used += item.bytes;
      kept.add(item.row);
    }
    const fitted = {
      ...manifest,
      known_entities: entities.filter((row) => kept.has(row)),
      recent_sessions: sessions.filter((row) => kept.has(row)),
    };
    const yaml = yamlOf(fitted);
    if (Buffer.byteLength(yaml) <= limit) {
      const leftOut = {
        entities: entities.length - fitted.known_entities.length,
        sessions: sessions.length - fitted.recent_sessions.length,
      };
      return { manifest: fitted, leftOut, yaml };
    }
  }
  const empty = { ...manifest, known_entities: [], recent_sessions: [] };
  return { manifest: empty, leftOut: { entities: entities.length, sessions: sessions.length }, yaml: null };
}
