/**
 * The openclaw participant: an OpenClaw instance's memories and sessions, read over its HTTP API
 * (`/api/status`, `/api/memories`, `/api/sessions`) — the one participant whose source is the
 * network, not a file (conformance/participants/README.md, "openclaw"; docs/participants.md).
 * Nothing on disk is read. The instance must pass the handshake (handshake.ts) before anything
 * else is asked; every request goes through http.ts (timeouts, size cap, no redirect to another
 * host, the token only in its header). OpenClaw is a quarantined member: without `--out` its
 * export is staged for review, not written live (`staged`).
 */
import { BourdonError, type ErrorCode } from '../../core/errors.js';
import { plural } from '../../core/store/words.js';
import type { ExportEnvironment, Participant, ParticipantExport, SourceStatus } from '../kit/participant.js';
import { pyStr, truthy } from '../../core/python-str.js';
import { assembleManifest, type Entity, type Session } from '../kit/manifest-shape.js';
import { sinceRules, type Since } from '../kit/since.js';
import { NestedTooDeep, parsePythonJson, pythonJsonBatches, PyFloat } from '../kit/python-json.js';
import { pyStrip, scrubNativeText } from '../kit/scrub.js';
import { handshakeProblem } from './handshake.js';
import { InstanceClient, InstanceUnreachable } from './http.js';
import { INSECURE_VARIABLE, instanceSettings, shownUrl, tokenOf, type InstanceSettings } from './settings.js';

const OPENCLAW_ID = 'openclaw';

const ROLE_NARRATIVE =
  'OpenClaw, a personal AI assistant, read over its HTTP API: its memories and recent sessions. ' +
  'A quarantined member: its export is staged for an operator to review and promote before the ' +
  'other agents see it.';

const MAX_MEMORIES = 100;
const MAX_SESSIONS = 50;
const MAX_TAGS = 8;
const MAX_PROJECTS = 5;

type Item = Record<string, unknown>;

/**
 * Deepest nesting of lists and objects a field of a memory or a session may have: a field nested
 * deeper (tags 2,500 lists deep) is skipped, with one warning for the route. None of the fields
 * read is meant to nest at all; reading one as text (`str()`) recurses once per level.
 */
const MAX_FIELD_DEPTH = 32;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** An answer's body as text (UTF-8, fatal), or undefined when it is not UTF-8. */
function utf8Text(body: Buffer): string | undefined {
  try {
    return UTF8.decode(body);
  } catch {
    return undefined;
  }
}

/** A text as JSON (read as Python reads it: python-json.ts), or why it is not. */
function parsedText(text: string): { value: unknown } | { problem: string } {
  try {
    return { value: parsePythonJson(text) };
  } catch (error) {
    return { problem: error instanceof NestedTooDeep ? `a body of ${error.message}` : 'a body that is not JSON' };
  }
}

/** An answer's body as JSON, or why it is not. */
function parsedBody(body: Buffer): { value: unknown } | { problem: string } {
  const text = utf8Text(body);
  return text === undefined ? { problem: 'a body that is not UTF-8' } : parsedText(text);
}

/**
 * Whether `value` nests lists or objects more than `limit` levels deep. Recursive, but never past
 * `limit` + 1 frames whatever the depth of `value`; nothing is allocated for a flat field.
 */
function nestedDeeper(value: unknown, limit: number, depth = 0): boolean {
  if (value === null || typeof value !== 'object' || value instanceof PyFloat) return false;
  if (depth >= limit) return true;
  if (Array.isArray(value)) {
    for (const child of value as unknown[]) if (nestedDeeper(child, limit, depth + 1)) return true;
    return false;
  }
  for (const child of Object.values(value)) if (nestedDeeper(child, limit, depth + 1)) return true;
  return false;
}

/** `item` without its fields nested deeper than MAX_FIELD_DEPTH, and how many it lost. */
function withoutDeepFields(item: Item): { kept: Item; skipped: number } {
  let deep: string[] | undefined;
  for (const key of Object.keys(item)) {
    const value = item[key];
    if (typeof value === 'object' && value !== null && nestedDeeper(value, MAX_FIELD_DEPTH)) (deep ??= []).push(key);
  }
  if (deep === undefined) return { kept: item, skipped: 0 };
  const kept: Item = {};
  for (const [key, value] of Object.entries(item))
    if (!deep.includes(key)) Object.defineProperty(kept, key, { value, enumerable: true, writable: true });
  return { kept, skipped: deep.length };
}

/** The one warning for a route's fields nested too deep, when any. */
function deepWarning(skipped: number, route: string, warnings: string[]): void {
  if (skipped > 0)
    warnings.push(
      `openclaw: ${route}: ${plural(skipped, 'field')} nested more than ${MAX_FIELD_DEPTH} levels deep skipped`,
    );
}

/** A JSON object (a Python dict): not a list, and not one of python-json.ts's floats. */
function isItem(value: unknown): value is Item {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof PyFloat);
}

function refused(client: InstanceClient, reason: string, code: ErrorCode = 'peer_refused'): BourdonError {
  return new BourdonError(client.mask(`openclaw: handshake refused: ${reason}`), code);
}

/** `/api/status` and the handshake; the version the instance reports, or a refusal (exit 1, nothing written). */
async function handshake(client: InstanceClient, token: string | undefined): Promise<string> {
  let answer;
  try {
    answer = await client.get('/api/status');
  } catch (error) {
    if (error instanceof InstanceUnreachable) throw refused(client, error.message, error.code);
    throw error;
  }
  if (answer.status === 401 || answer.status === 403)
    throw refused(
      client,
      token === undefined
        ? `/api/status answered HTTP ${answer.status}: the instance wants its API token in OPENCLAW_TOKEN (a variable, never a flag)`
        : `/api/status answered HTTP ${answer.status}: the instance refused the token in OPENCLAW_TOKEN`,
    );
  if (answer.status < 200 || answer.status > 299)
    throw refused(client, `/api/status answered HTTP ${answer.status}; is this an OpenClaw instance?`);
  const body = parsedBody(answer.body);
  if ('problem' in body) throw refused(client, `/api/status answered ${body.problem}`);
  const { version, problem } = handshakeProblem(isItem(body.value) ? body.value : {});
  if (problem !== undefined || version === undefined) throw refused(client, problem ?? 'no version');
  return version;
}

/**
 * What a list route's objects make (the sessions, the entities): each object handed to `take` in
 * order, its fields nested too deep taken out; its warnings go where it was started.
 */
interface Gatherer<T> {
  take(item: Item): void;
  /** Whether it takes no more items (the rest need only be JSON and not nested too deep). */
  full(): boolean;
  result(): T;
}

/**
 * What the objects of a list route (`/api/memories`, `/api/sessions`) make: the list itself, or
 * an object's `key` list. An HTTP error or a body that is not a JSON list gives none, with a
 * warning (the engine reads none); a transport failure fails the export (http.ts).
 */
async function gathered<T>(
  client: InstanceClient,
  route: string,
  key: string,
  warnings: string[],
  start: (warnings: string[]) => Gatherer<T>,
): Promise<T> {
  const text = await bodyText(client, route, key, warnings);
  if (text === undefined) return start(warnings).result();
  const byBatch = batchByBatch(text, key, start, warnings);
  if (byBatch !== undefined) return byBatch.result;
  const gatherer = start(warnings);
  for (const item of wholeList(text, route, key, warnings)) gatherer.take(item);
  return gatherer.result();
}

/** A list route's body as text, or undefined with a warning (an HTTP error, not UTF-8); the bytes die here. */
async function bodyText(client: InstanceClient, route: string, key: string, warnings: string[]) {
  const answer = await client.get(route);
  if (answer.status < 200 || answer.status > 299) {
    warnings.push(`openclaw: ${route} answered HTTP ${answer.status}; no ${key} read`);
    return undefined;
  }
  const text = utf8Text(answer.body);
  if (text === undefined) warnings.push(`openclaw: ${route} answered a body that is not UTF-8; no ${key} read`);
  return text;
}

/**
 * A plain list (or `{"<key>": [...]}`) read a batch of elements at a time (python-json.ts,
 * pythonJsonBatches), each dead once taken: 10,000 sessions are never all in memory at once.
 * Undefined, nothing said, for any other text, a batch that does not parse, or an element nested
 * more than MAX_FIELD_DEPTH levels (a field to skip, or nesting near what Python refuses): read
 * whole then, which says what is wrong as it always did.
 */
function batchByBatch<T>(
  text: string,
  key: string,
  start: (warnings: string[]) => Gatherer<T>,
  warnings: string[],
): { result: T } | undefined {
  const own: string[] = [];
  const gatherer = start(own);
  const exact = () => !gatherer.full();
  const batches = pythonJsonBatches(text, undefined, { exact }) ?? pythonJsonBatches(text, key, { exact });
  if (batches === null) return undefined;
  try {
    for (const batch of batches)
      for (const value of batch) {
        if (!isItem(value)) {
          if (value !== null && typeof value === 'object' && nestedDeeper(value, MAX_FIELD_DEPTH)) return undefined;
          continue;
        }
        const item = withoutDeepFields(value);
        if (item.skipped > 0) return undefined;
        gatherer.take(item.kept);
      }
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
  warnings.push(...own);
  return { result: gatherer.result() };
}

/** A list route's objects, the body read whole. */
function wholeList(text: string, route: string, key: string, warnings: string[]): Item[] {
  const body = parsedText(text);
  if ('problem' in body) {
    warnings.push(`openclaw: ${route} answered ${body.problem}; no ${key} read`);
    return [];
  }
  let list = body.value;
  if (isItem(list)) {
    if (!truthy(list[key])) return [];
    list = list[key];
  }
  if (!Array.isArray(list)) {
    warnings.push(`openclaw: ${route} answered ${describeJson(list)} where a list of ${key} belongs; no ${key} read`);
    return [];
  }
  let skipped = 0;
  const items = list.filter(isItem).map((item) => {
    const read = withoutDeepFields(item);
    skipped += read.skipped;
    return read.kept;
  });
  deepWarning(skipped, route, warnings);
  return items;
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (isItem(value)) return 'an object';
  if (value instanceof PyFloat || typeof value === 'bigint') return 'a number';
  return `a ${typeof value}`;
}

/** The first truthy of `keys` in `item`, as Python's `a or b` picks it; undefined when none is. */
function firstTruthy(item: Item, keys: readonly string[]): unknown {
  for (const key of keys) if (truthy(item[key])) return item[key];
  return undefined;
}

/**
 * The first `count` items of a list field (a string gives its first `count` characters), each
 * converted to text and scrubbed. A value that is neither (an object, a number, `true`) is
 * skipped with a warning: the engine fails on it (README, Not covered).
 */
function scrubbedItems(value: unknown, count: number, what: string, warnings: string[]): string[] {
  if (!truthy(value)) return [];
  let items: unknown[];
  if (Array.isArray(value)) items = value.slice(0, count);
  else if (typeof value === 'string') items = [...value].slice(0, count);
  else {
    warnings.push(`openclaw: ${what} is ${describeJson(value)}, not a list; skipped`);
    return [];
  }
  return items.map((item) => scrubNativeText(pyStr(item)));
}

/** The entities of the memories: the first hundred objects (a nameless one still uses one up, as in the engine). */
function entitiesOf(warnings: string[]): Gatherer<Entity[]> {
  const entities: Entity[] = [];
  let seen = 0;
  return {
    take(item) {
      if (seen++ >= MAX_MEMORIES) return;
      const named = firstTruthy(item, ['name', 'title']);
      const name = named === undefined ? '' : scrubNativeText(pyStr(named));
      if (!name) return;
      entities.push({
        name,
        type: truthy(item.type) ? pyStr(item.type) : 'topic',
        summary: scrubNativeText(truthy(item.summary) ? pyStr(item.summary) : ''),
        tags: scrubbedItems(item.tags, MAX_TAGS, `the tags of memory ${JSON.stringify(name)}`, warnings),
      });
    },
    full: () => seen >= MAX_MEMORIES,
    result: () => entities,
  };
}

/** The sessions: the first fifty dated ones `--since` keeps. */
function sessionsOf(since: Since, warnings: string[]): Gatherer<Session[]> {
  const sessions: Session[] = [];
  return {
    take(item) {
      if (sessions.length >= MAX_SESSIONS) return;
      const dated = firstTruthy(item, ['updated_at', 'started_at', 'date']);
      const date = dated === undefined ? '' : pyStrip(pyStr(dated));
      if (!date) return;
      // A date that does not parse is kept: only a known instant before the cutoff drops a session.
      if (!since.keepInstant(date)) return;
      const titled = firstTruthy(item, ['title', 'summary']);
      const action = titled === undefined ? '' : scrubNativeText(pyStr(titled));
      sessions.push({
        date,
        project_focus: scrubbedItems(item.projects, MAX_PROJECTS, `the projects of the session of ${date}`, warnings),
        key_actions: action ? [action] : [],
      });
    },
    full: () => sessions.length >= MAX_SESSIONS,
    result: () => sessions,
  };
}

async function exportOpenclaw(environment: ExportEnvironment): Promise<ParticipantExport> {
  const settings = instanceSettings(environment.env);
  const client = new InstanceClient(settings.client);
  const version = await handshake(client, settings.client.token);
  const warnings: string[] = [];
  const since = sinceRules(environment);
  const sessions = await gathered(client, '/api/sessions', 'sessions', warnings, (said) => sessionsOf(since, said));
  const entities = await gathered(client, '/api/memories', 'memories', warnings, entitiesOf);
  const manifest = assembleManifest({
    agent: { id: OPENCLAW_ID, type: 'other', instance: settings.url, role_narrative: ROLE_NARRATIVE },
    now: environment.now,
    // The engine stamps this participant with `Z`, not `+00:00`.
    zone: 'Z',
    capabilities: [`openclaw ${version}`],
    sessions,
    entities,
    policy: { default: 'team' },
    emptyLists: 'write',
  });
  return {
    manifest,
    sources: [{ name: 'instance', path: settings.url, found: true }],
    warnings: warnings.map((w) => client.mask(w)),
  };
}

/**
 * Whether an instance answers at the URL: one GET of `/api/status` without the token, bounded by
 * the connect timeout (doctor and export-all ask before exporting). Any HTTP answer counts.
 */
async function sources(environment: ExportEnvironment): Promise<SourceStatus[]> {
  let settings: InstanceSettings;
  try {
    settings = instanceSettings(environment.env);
  } catch (error) {
    return [{ name: 'instance', path: shownUrl(environment.env), found: false, problem: (error as Error).message }];
  }
  const probe = new InstanceClient({ ...settings.client, timeoutMs: settings.client.connectTimeoutMs });
  const found = await probe.get('/api/status', { withToken: false }).then(
    () => true,
    () => false,
  );
  return [{ name: 'instance', path: settings.url, found }];
}

export const openclawParticipant: Participant = {
  agentId: OPENCLAW_ID,
  // A server, nothing on disk: asked again at an interval (`bourdon watch --poll`).
  watch: { follow: 'poll' },
  topic: 'openclaw',
  staged: true,
  help: {
    summary: "Stage an OpenClaw instance's memories and sessions for review.",
    reads:
      'Reads a running OpenClaw instance over its HTTP API (--url, else $OPENCLAW_URL, else http://127.0.0.1:8080): /api/status first — an instance older than 2026.1.29 or without authentication is refused (exit 1, nothing written) — then /api/sessions and /api/memories. The bearer token comes from $OPENCLAW_TOKEN only (never a flag: it would show in `ps` and your shell history) and is never printed, logged or written. Each connection has a timeout (5 s) and the whole export one (30 s, redirects included), answers over 32 MiB are refused, a redirect to another host is never followed and proxy variables are ignored. The token is never sent over plain http to another machine without --insecure, and if the instance echoes it back, it is removed from everything written or printed.',
    writes:
      'OpenClaw is a quarantined member: the manifest is staged at <library>/staging/openclaw/openclaw.l5.yaml, not written live — review it with `bourdon staging list --diff` and merge it with `bourdon staging promote openclaw`. With --out FILE it is written to FILE instead. docs/security.md has the network rules.',
    flags: [
      {
        name: 'url',
        env: 'OPENCLAW_URL',
        description: 'The instance (default $OPENCLAW_URL, else http://127.0.0.1:8080).',
        helpValue: '<url>',
      },
      {
        name: 'connect-timeout',
        env: 'BOURDON_OPENCLAW_CONNECT_TIMEOUT',
        description: 'Seconds to wait for each connection (default $BOURDON_OPENCLAW_CONNECT_TIMEOUT, else 5).',
        helpValue: '<seconds>',
      },
      {
        name: 'timeout',
        env: 'BOURDON_OPENCLAW_TIMEOUT',
        description:
          'Seconds the whole export may take, every request and redirect (default $BOURDON_OPENCLAW_TIMEOUT, else 30).',
        helpValue: '<seconds>',
      },
      {
        name: 'insecure',
        env: INSECURE_VARIABLE,
        description: `Send OPENCLAW_TOKEN over plain http to a host other than this machine (default $${INSECURE_VARIABLE}); anyone on the way can read it.`,
        helpValue: '',
        switch: true,
      },
    ],
    examples: [
      '<%= config.bin %> openclaw export',
      '<%= config.bin %> openclaw export --url http://127.0.0.1:8080 --since 2026-04-01 --dry-run --json',
      '<%= config.bin %> openclaw export --out openclaw.l5.yaml --print',
    ],
  },
  sources,
  export: exportOpenclaw,
  secrets: (environment) => [tokenOf(environment.env)].filter((token): token is string => token !== undefined),
};
