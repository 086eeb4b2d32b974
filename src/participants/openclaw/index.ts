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
import { NestedTooDeep, parsePythonJson, PyFloat } from '../kit/python-json.js';
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

/** An answer's body as JSON (UTF-8, read as Python reads it: python-json.ts), or why it is not. */
function parsedBody(body: Buffer): { value: unknown } | { problem: string } {
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch {
    return { problem: 'a body that is not UTF-8' };
  }
  try {
    return { value: parsePythonJson(text) };
  } catch (error) {
    return { problem: error instanceof NestedTooDeep ? `a body of ${error.message}` : 'a body that is not JSON' };
  }
}

/** Whether `value` nests lists or objects more than `limit` levels deep; iterative, whatever the depth. */
function nestedDeeper(value: unknown, limit: number): boolean {
  // Most fields are text or a number: no list to make for them (10,000 sessions' fields each).
  if (value === null || typeof value !== 'object' || value instanceof PyFloat) return false;
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object' || item instanceof PyFloat) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

/** `items` without their fields nested deeper than MAX_FIELD_DEPTH; one warning for the route when any. */
function withoutDeepFields(items: Item[], route: string, warnings: string[]): Item[] {
  let skipped = 0;
  const out = items.map((item) => {
    const deep = Object.keys(item).filter((key) => nestedDeeper(item[key], MAX_FIELD_DEPTH));
    if (deep.length === 0) return item;
    skipped += deep.length;
    const kept: Item = {};
    for (const [key, value] of Object.entries(item))
      if (!deep.includes(key)) Object.defineProperty(kept, key, { value, enumerable: true, writable: true });
    return kept;
  });
  if (skipped > 0)
    warnings.push(
      `openclaw: ${route}: ${plural(skipped, 'field')} nested more than ${MAX_FIELD_DEPTH} levels deep skipped`,
    );
  return out;
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
 * The objects of a list route (`/api/memories`, `/api/sessions`): the list itself, or an
 * object's `key` list. An HTTP error or a body that is not a JSON list gives none, with a
 * warning (the engine reads none); a transport failure fails the export (http.ts).
 */
async function listed(client: InstanceClient, route: string, key: string, warnings: string[]): Promise<Item[]> {
  const answer = await client.get(route);
  if (answer.status < 200 || answer.status > 299) {
    warnings.push(`openclaw: ${route} answered HTTP ${answer.status}; no ${key} read`);
    return [];
  }
  const body = parsedBody(answer.body);
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
  return withoutDeepFields(list.filter(isItem), route, warnings);
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

function entitiesOf(items: readonly Item[], warnings: string[]): Entity[] {
  const entities: Entity[] = [];
  // A nameless memory still uses up one of the hundred, as in the engine.
  for (const item of items.slice(0, MAX_MEMORIES)) {
    const named = firstTruthy(item, ['name', 'title']);
    const name = named === undefined ? '' : scrubNativeText(pyStr(named));
    if (!name) continue;
    entities.push({
      name,
      type: truthy(item.type) ? pyStr(item.type) : 'topic',
      summary: scrubNativeText(truthy(item.summary) ? pyStr(item.summary) : ''),
      tags: scrubbedItems(item.tags, MAX_TAGS, `the tags of memory ${JSON.stringify(name)}`, warnings),
    });
  }
  return entities;
}

function sessionsOf(items: readonly Item[], since: Since, warnings: string[]): Session[] {
  const sessions: Session[] = [];
  for (const item of items) {
    if (sessions.length >= MAX_SESSIONS) break;
    const dated = firstTruthy(item, ['updated_at', 'started_at', 'date']);
    const date = dated === undefined ? '' : pyStrip(pyStr(dated));
    if (!date) continue;
    // A date that does not parse is kept: only a known instant before the cutoff drops a session.
    if (!since.keepInstant(date)) continue;
    const titled = firstTruthy(item, ['title', 'summary']);
    const action = titled === undefined ? '' : scrubNativeText(pyStr(titled));
    sessions.push({
      date,
      project_focus: scrubbedItems(item.projects, MAX_PROJECTS, `the projects of the session of ${date}`, warnings),
      key_actions: action ? [action] : [],
    });
  }
  return sessions;
}

async function exportOpenclaw(environment: ExportEnvironment): Promise<ParticipantExport> {
  const settings = instanceSettings(environment.env);
  const client = new InstanceClient(settings.client);
  const version = await handshake(client, settings.client.token);
  const warnings: string[] = [];
  const sessions = sessionsOf(
    await listed(client, '/api/sessions', 'sessions', warnings),
    sinceRules(environment),
    warnings,
  );
  const entities = entitiesOf(await listed(client, '/api/memories', 'memories', warnings), warnings);
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
