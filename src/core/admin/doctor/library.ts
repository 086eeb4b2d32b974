/**
 * Doctor's library checks: the library folder, whether every manifest is read, ids declared
 * twice, and what of each manifest the queries leave out. Which rows are read is the store's
 * rule (its normalisers in store/manifest.ts): a row they drop is reported, so doctor and the
 * queries cannot disagree; so is a value the store's reading drops from a row it keeps
 * (store/lenient-reader.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { isAccessLevel, labelLevel } from '../../store/visibility.js';
import { readManifest } from '../../store/lenient-reader.js';
import { MANIFEST_SUFFIX, parseManifest, type LibraryStore, type LibrarySnapshot } from '../../store/library.js';
import {
  AGENT_TYPES,
  isObject,
  isRecordedUndated,
  normaliseEntity,
  normaliseNote,
  normaliseSession,
  rawRows,
  type RawObject,
} from '../../store/manifest.js';
import { check, plural, type CheckResult } from './check.js';

export function libraryExists(root: string, checks: CheckResult[]): boolean {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(root);
  } catch {
    checks.push(
      check('library', 'library', 'fail', `${root} does not exist`, [
        'create it with `bourdon init` (or point --library / BOURDON_LIBRARY at yours)',
      ]),
    );
    return false;
  }
  if (!stat.isDirectory()) {
    checks.push(check('library', 'library', 'fail', `${root} is not a folder`));
    return false;
  }
  const agents = path.join(root, 'agents');
  if (!fs.existsSync(agents)) {
    checks.push(
      check('library', 'library', 'warn', `${root} has no agents/ folder: no manifest can be read`, [
        '`bourdon init` creates it',
      ]),
    );
    return true;
  }
  checks.push(check('library', 'library', 'ok', root));
  return true;
}

export function manifestChecks(store: LibraryStore): CheckResult[] {
  const snapshot = store.snapshot();
  const out: CheckResult[] = [];
  const duplicates = duplicateFiles(store, snapshot);
  const total = snapshot.agents.length + snapshot.broken.length + duplicates.length;

  if (snapshot.broken.length) {
    out.push(
      check(
        'manifests',
        'manifests',
        'fail',
        `${plural(snapshot.broken.length, 'manifest')} of ${total} cannot be read: queries skip ${snapshot.broken.length === 1 ? 'it' : 'them'}`,
        snapshot.broken.map((item) => `agents/${item.file}: ${item.error.split('\n')[0]}`),
      ),
    );
  } else {
    out.push(
      check('manifests', 'manifests', 'ok', total ? `${plural(total, 'manifest')}, all readable` : 'no manifests yet'),
    );
  }

  out.push(
    duplicates.length
      ? check(
          'duplicates',
          'duplicate ids',
          'fail',
          `${plural(duplicates.length, 'file')} ${duplicates.length === 1 ? 'declares' : 'declare'} an agent id another file also declares; ${duplicates.length === 1 ? 'it is' : 'they are'} skipped: the file named after the id is served, else the last by name`,
          duplicates,
        )
      : check('duplicates', 'duplicate ids', 'ok', 'every agent id is declared once'),
  );

  const failures: string[] = [];
  const warnings: string[] = [];
  const notices: string[] = [];
  const leftOut: { file: string; fields: string[] }[] = [];
  for (const record of snapshot.agents) {
    const doc = store.document(record);
    const problems = schemaProblems(doc);
    for (const problem of problems.fail) failures.push(`agents/${record.file}: ${problem}`);
    for (const problem of problems.warn) warnings.push(`agents/${record.file}: ${problem}`);
    for (const notice of problems.info) notices.push(`agents/${record.file}: ${notice}`);
    const fields = valuesLeftOutOfKeptRows(doc);
    if (fields.length) leftOut.push({ file: record.file, fields });
  }
  if (failures.length) {
    out.push(
      check(
        'schema',
        'schema',
        'fail',
        `${plural(failures.length, 'violation')} that ${failures.length === 1 ? 'hides' : 'hide'} data from queries${warnings.length ? `, ${plural(warnings.length, 'other deviation')}` : ''}`,
        [...failures, ...warnings],
      ),
    );
  } else if (warnings.length) {
    out.push(
      check(
        'schema',
        'schema',
        'warn',
        `${plural(warnings.length, 'deviation')} from the L5 schema (the rows are still read)`,
        warnings,
      ),
    );
  } else {
    out.push(
      check(
        'schema',
        'schema',
        'ok',
        snapshot.agents.length ? 'every manifest follows the L5 schema' : 'nothing to check',
      ),
    );
  }
  if (notices.length) out.push(undatedCheck(notices));
  out.push(fieldsCheck(leftOut, snapshot.agents.length));
  return out;
}

/**
 * Sessions an exporter recorded with an empty date (model.ts isRecordedUndated): written so on
 * purpose, at parity with the engine, and not served (D17). Worth knowing, nothing to fix.
 */
function undatedCheck(notices: string[]): CheckResult {
  return check(
    'undated',
    'undated sessions',
    'info',
    `${plural(notices.length, 'session')} recorded without a date by ${notices.length === 1 ? 'its' : 'their'} exporter ${notices.length === 1 ? 'is' : 'are'} not listed`,
    notices,
  );
}

/** Field names a `fields` detail line names before `and N more`. */
const FIELDS_NAMED = 3;
/** Files the `fields` check names one line each; the rest are counted. */
const FILES_NAMED = 20;

/**
 * The values the store's reading left out of rows it still reads (an entity's summary that is
 * a mapping, one alias that is a list): the queries answer the row without them. A count per
 * file and its first fields, bounded; the rows left out whole are the schema check's.
 */
function fieldsCheck(leftOut: readonly { file: string; fields: string[] }[], agents: number): CheckResult {
  if (!leftOut.length)
    return check(
      'fields',
      'fields',
      'ok',
      agents ? 'every value of the rows read fits the L5 model' : 'nothing to check',
    );
  const total = leftOut.reduce((sum, { fields }) => sum + fields.length, 0);
  const details = leftOut.slice(0, FILES_NAMED).map(({ file, fields }) => {
    const named = fields.slice(0, FIELDS_NAMED).join(', ');
    const more = fields.length > FIELDS_NAMED ? `, and ${fields.length - FIELDS_NAMED} more` : '';
    return `agents/${file}: ${plural(fields.length, 'value')} (${named}${more})`;
  });
  if (leftOut.length > FILES_NAMED) details.push(`and ${plural(leftOut.length - FILES_NAMED, 'more file')}`);
  return check(
    'fields',
    'fields',
    'warn',
    `${plural(total, 'value')} in ${plural(leftOut.length, 'manifest')} ${total === 1 ? 'does' : 'do'} not fit the L5 model and ${total === 1 ? 'is' : 'are'} left out of rows that are still read`,
    details,
  );
}

/**
 * Where the store's reading of `doc` left a value out of a row it kept. A whole block of the
 * wrong kind (`known_entities` not a list, `last_updated` not text) is the schema check's.
 */
function valuesLeftOutOfKeptRows(doc: RawObject): string[] {
  return readManifest(doc)
    .misfits.filter(({ field, rowKept }) => rowKept && /[.[]/.test(field))
    .map(({ field }) => field);
}

/** Files that parsed but lost their id to another file (store/snapshot.ts laterServedOver chooses). */
function duplicateFiles(store: LibraryStore, snapshot: LibrarySnapshot): string[] {
  const kept = new Set(snapshot.agents.map((agent) => agent.file));
  const broken = new Set(snapshot.broken.map((item) => item.file));
  let names: string[];
  try {
    names = fs
      .readdirSync(store.paths.agents)
      .filter((name) => name.endsWith(MANIFEST_SUFFIX))
      .sort();
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const file of names) {
    if (kept.has(file) || broken.has(file)) continue;
    const full = path.join(store.paths.agents, file);
    try {
      const record = parseManifest(fs.readFileSync(full, 'utf8'), file, full);
      const owner = snapshot.byId.get(record.id);
      out.push(
        `agents/${file}: agent id ${JSON.stringify(record.id)} is already ${owner ? `in agents/${owner.file}` : 'taken'}`,
      );
    } catch {
      // changed since the snapshot; the next run sees it
    }
  }
  return out;
}

const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Schema problems of one manifest (spec §2, L5 spec_version "0.1"). `fail`: rows or fields the
 * queries cannot read (the store leaves them out silently). `warn`: deviations the reader
 * tolerates.
 */
function schemaProblems(doc: RawObject): { fail: string[]; warn: string[]; info: string[] } {
  const fail: string[] = [];
  const warn: string[] = [];
  const info: string[] = [];
  if (doc.spec_version === undefined) warn.push('no spec_version (expected "0.1")');
  else if (String(doc.spec_version) !== '0.1')
    warn.push(`spec_version ${JSON.stringify(doc.spec_version)} (this reader knows "0.1")`);
  if (!isObject(doc.agent)) {
    warn.push('no agent block (id taken from the file name, type unknown)');
  } else if (doc.agent.type === undefined || doc.agent.type === null) {
    warn.push('agent.type is missing');
  } else if (!(AGENT_TYPES as readonly unknown[]).includes(doc.agent.type)) {
    warn.push(`agent.type ${JSON.stringify(doc.agent.type)} is not one of ${AGENT_TYPES.join(', ')}`);
  }
  if (doc.last_updated === undefined || doc.last_updated === null) warn.push('no last_updated');
  else if (typeof doc.last_updated !== 'string' || !ISO_DATETIME.test(doc.last_updated.trim())) {
    warn.push(`last_updated ${JSON.stringify(doc.last_updated)} is not an ISO datetime`);
  }
  policyProblem(doc.visibility_policy, warn);
  for (const field of ['capabilities', 'known_entities', 'recent_sessions', 'notes']) {
    const value = doc[field];
    if (value !== undefined && value !== null && !Array.isArray(value)) fail.push(`${field} is not a list (ignored)`);
  }
  // Which rows the queries read is the store's rule: a row its normaliser drops is reported.
  const checkRows = (field: string, read: (row: RawObject, where: string) => void) =>
    rawRows(doc, field).forEach((row, index) => {
      const where = `${field}[${index}]`;
      if (!isObject(row)) return fail.push(`${where} is not a mapping (ignored)`);
      read(row, where);
      visibilityProblem(row, where, warn);
    });
  checkRows('known_entities', (row, where) => {
    if (!normaliseEntity(row)) fail.push(`${where} has no name (ignored)`);
  });
  checkRows('recent_sessions', (row, where) => {
    const session = normaliseSession(row);
    if (isRecordedUndated(row)) info.push(`${where} has an empty date (recorded undated): it is not listed`);
    else if (!session) fail.push(`${where} has no date and is not listed`);
    else if (session.day === null)
      fail.push(`${where} has no valid date (YYYY-MM-DD): undated, it is left out wherever a date window applies`);
  });
  checkRows('notes', (row, where) => {
    if (!normaliseNote(row)) fail.push(`${where} needs a valid date and a text: it is not listed`);
  });
  return { fail, warn, info };
}

function visibilityProblem(row: RawObject, where: string, warn: string[]): void {
  const value = row.visibility;
  if (value === undefined || value === null || isAccessLevel(value)) return;
  const level = labelLevel(value);
  // `TEAM` and ' team ' are read as team (labels are trimmed, case-insensitive): worth tidying, not a problem.
  if (typeof value === 'string' && value.trim().toLowerCase() === level) {
    warn.push(`${where}.visibility ${JSON.stringify(value)} is read as ${level}; write it as '${level}'`);
  } else {
    warn.push(`${where}.visibility ${JSON.stringify(value)} is unknown: read as private`);
  }
}

/** A visibility_policy that reads unlabelled rows as private though it may not mean to (D19). */
function policyProblem(policy: unknown, warn: string[]): void {
  if (policy === undefined || policy === null) return;
  if (!isObject(policy)) {
    warn.push('visibility_policy is not a mapping: rows without a visibility are read as private');
    return;
  }
  const value = policy.default;
  if (value === undefined || value === null || isAccessLevel(value)) return;
  const level = labelLevel(value);
  if (typeof value === 'string' && value.trim().toLowerCase() === level)
    warn.push(`visibility_policy.default ${JSON.stringify(value)} is read as ${level}; write it as '${level}'`);
  else
    warn.push(
      `visibility_policy.default ${JSON.stringify(value)} is unknown: rows without a visibility are read as private`,
    );
}
