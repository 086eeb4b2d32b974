/**
 * The built-in demo library: invented agents working on an invented app. Its dates are
 * written relative to today (`__DAY-N__` = N days ago; `__MINUTES-AGO-N__`, a time N minutes
 * ago, so that no stamp is ever in the future) so recent-work queries always find something,
 * whenever the demo runs. The shipped files are templates (`demo/templates/*.l5.yaml.in`,
 * no `agents/` folder) so that nobody points `--library` at them by mistake and sees a library
 * whose every date is unreadable; `bourdon demo --keep` gives a real copy.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createContext } from '../context.js';
import { BourdonError } from '../errors.js';
import { configPaths } from '../store/config.js';
import { localDay } from '../store/dates.js';
import { LibraryStore } from '../store/library.js';
import type { Caller } from '../trust/caller.js';
import { invoke } from '../operations/invoke.js';
import { commitToFederationOperation } from '../operations/write-operations.js';
import type { CommitRequest } from '../writes/inputs.js';
import { packageRoot } from './package-root.js';

/** The demo manifests as shipped (demo/templates in the package), one `<agent>.l5.yaml.in` each. */
function demoTemplates(): string {
  return path.join(packageRoot(), 'demo', 'templates');
}

const TEMPLATE_SUFFIX = '.in';

export function installDemoLibrary(target: string, now = new Date()): string {
  const agentsDir = path.join(target, 'agents');
  fs.mkdirSync(agentsDir, { recursive: true });
  for (const file of fs.readdirSync(demoTemplates())) {
    if (!file.endsWith('.l5.yaml' + TEMPLATE_SUFFIX)) continue;
    const text = fs.readFileSync(path.join(demoTemplates(), file), 'utf8');
    // Days ago as local dates; times of today as minutes ago, so that no stamp is in the future.
    const dated = text
      .replace(/__DAY-(\d+)__/g, (_, days: string) =>
        localDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - Number(days))),
      )
      .replace(/__MINUTES-AGO-(\d+)__/g, (_, minutes: string) =>
        new Date(now.getTime() - Number(minutes) * 60_000).toISOString().replace(/\.\d+Z$/, '+00:00'),
      );
    fs.writeFileSync(path.join(agentsDir, file.slice(0, -TEMPLATE_SUFFIX.length)), dated);
  }
  return target;
}

/** The rows file the `commit` examples read (`--file rows.yaml`), written beside `agents/`. */
const DEMO_ROWS_FILE = 'rows.yaml';

const DEMO_ROWS = `# Rows for \`bourdon commit notes-bot --agent-type note-capture --file rows.yaml\`:
# the commit tool's shape (entities, sessions, notes); an L5 manifest is accepted too.
entities:
  - name: Roadmap
    type: draft
    summary: Q3 themes, gathered from the team's notes.
    tags: [planning]
notes:
  - date: '__DAY-0__'
    title: Federated recall
    text: Ask every agent what it knows before starting a task.
    tags: [idea]
`;

/** A knowledge graph as the MCP memory server keeps it, for `mcp-memory export --file memory.jsonl`. */
const DEMO_MEMORY_FILE = 'memory.jsonl';

const DEMO_MEMORY = [
  {
    type: 'entity',
    name: 'Sync Engine',
    entityType: 'project',
    observations: ['Merges offline edits by vector clock.'],
  },
  {
    type: 'entity',
    name: 'Watch Build',
    entityType: 'component',
    observations: ['Lags the phone build by a release.'],
  },
  { type: 'relation', from: 'Watch Build', to: 'Sync Engine', relationType: 'depends on' },
]
  .map((line) => JSON.stringify(line))
  .join('\n');

/**
 * Gives the demo a history to explore, written through the real commit path: codex's manifest
 * in four versions (the template, then three commits), so `history codex`, `diff codex 4` and
 * `rollback codex 3` have something to show; writes members `openclaw` and `scout` staged
 * for review (`staging list`, `staging promote openclaw`, `staging reject scout`); `rows.yaml` for the commit
 * examples and `memory.jsonl` for the mcp-memory one.
 * `home` is the demo's own config dir: nothing is written outside the temp folders.
 */
export async function recordDemoHistory(target: string, home: string, now = new Date()): Promise<void> {
  const day = (days: number) => localDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - days));
  fs.writeFileSync(path.join(target, DEMO_ROWS_FILE), DEMO_ROWS.replace('__DAY-0__', day(0)));
  fs.writeFileSync(path.join(target, DEMO_MEMORY_FILE), `${DEMO_MEMORY}\n`);
  const store = new LibraryStore(target, { warn: () => {} });
  const ctx = createContext(store, { config: configPaths({ BOURDON_HOME: home }), env: { BOURDON_HOME: home } });
  const commits: CommitRequest[] = [
    {
      agent_id: 'codex',
      notes: [
        {
          date: day(1),
          title: 'Tiebreak',
          text: 'The device-id tiebreak ships behind a flag until the watch build catches up.',
          tags: ['decision'],
          project_focus: ['Sync Engine'],
        },
      ],
    },
    {
      agent_id: 'codex',
      entities: [
        {
          name: 'Flaky Watch Test',
          summary: 'Fails when the watch reconnects mid-merge; reproduced with a fixed seed.',
        },
      ],
    },
    {
      agent_id: 'codex',
      notes: [{ date: day(0), text: 'Merge-ordering property test passes 10k runs.', tags: ['release'] }],
    },
  ];
  for (const args of commits) {
    const result = await invoke(commitToFederationOperation, ctx, args);
    if ('error' in result) throw new BourdonError(`demo history: ${String(result.error)}`, 'internal');
  }
  // Two members' writes await review: one to promote, one to reject.
  const stagedWrites: [string, CommitRequest['entities']][] = [
    ['openclaw', [{ name: 'Chart Renderer', type: 'module', summary: 'Tiles cached per zoom level.' }]],
    ['scout', [{ name: 'Tidewater', summary: 'A tide app (scraped from a public page).' }]],
  ];
  for (const [id, entities] of stagedWrites) {
    const member: Caller = { agent_id: id, tier: 'quarantined', grants: ['cursor'], ceiling: 'team' };
    const staged = await invoke(
      commitToFederationOperation,
      { ...ctx, caller: member },
      { agent_id: id, agent_type: 'code-assistant', entities },
    );
    if ('error' in staged) throw new BourdonError(`demo staging: ${String(staged.error)}`, 'internal');
  }
}
