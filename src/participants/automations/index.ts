/**
 * The automation participants — claude-code-automations, codex-automations, cursor-automations
 * and copilot-automations — one implementation configured by variants.ts: the automations of
 * one folder (automations.ts), their runs (runs.ts), and the sessions and entities the engine
 * builds from them (conformance/participants/README.md, "claude_code_automations" and after).
 */
import { compareCodePoints } from '../../core/native/python-values.js';
import { modifiedAt, SourceReader } from '../kit/source-reader.js';
import { sinceRules, type Since } from '../kit/since.js';
import {
  assembleManifest,
  type Entity,
  federationFilter,
  type Manifest,
  PRIVATE_TAGS,
  type Session,
} from '../kit/manifest-shape.js';
import type { ExportEnvironment, Participant, ParticipantExport, SourceStatus } from '../kit/participant.js';
import { collapseAndCut } from '../kit/scrub.js';
import { readAutomations, stringItems, textField, type Automation } from './automations.js';
import {
  compileSignals,
  runProjects,
  runSignals,
  runTitle,
  type ActionFilter,
  type CompiledSignal,
  type Run,
} from './runs.js';
import {
  CLAUDE_CODE_AUTOMATIONS,
  CODEX_AUTOMATIONS,
  COPILOT_AUTOMATIONS,
  CURSOR_AUTOMATIONS,
  type AutomationStyle,
  type AutomationVariant,
} from './variants.js';

const SUMMARY_LIMIT = 260;

/** One kept run of one automation. */
interface AutomationRun {
  readonly automation: Automation;
  readonly run: Run;
}

/** The runs `--since` keeps (`keepDay`), newest first: by (date, id) descending, ties in automation then file order. */
function keptRuns(automations: readonly Automation[], since: Since): AutomationRun[] {
  const runs = automations.flatMap((automation) =>
    automation.runs.filter((run) => since.keepDay(run.date)).map((run) => ({ automation, run })),
  );
  // Array.prototype.sort is stable: equal keys keep their order.
  return runs.sort(
    (a, b) => compareCodePoints(b.run.date, a.run.date) || compareCodePoints(b.automation.id, a.automation.id),
  );
}

/** What one export builds rows with: its variant, its reader (for warnings), its compiled signals. */
interface Context {
  readonly variant: AutomationVariant;
  readonly reader: SourceReader;
  readonly signals: readonly CompiledSignal[];
}

/** What a run names beyond its automation: the session's focus, and the entities it evidences. */
interface Evidence {
  readonly focus: string[];
  readonly entities: { name: string; type: string; summary: string; tags: string[] }[];
}

/** What differs between the two styles of automation (variants.ts, AutomationStyle). */
interface StyleRules {
  readonly filter: ActionFilter;
  /** Ends a cut title or summary. */
  readonly ellipsis: string;
  /** key_actions per session: the automation line(s), the title, the actions. */
  readonly keyActions: number;
  /** An automation's summary after `<Label> automation '<name>' (<STATUS>). `. */
  details(automation: Automation): string;
  /** The key actions before the title. */
  heading(automation: Automation): string[];
  cwd(automation: Automation, context: Context): string;
  files(automation: Automation): string[];
  evidence(automation: Automation, run: Run, context: Context): Evidence;
}

const STYLES: Record<AutomationStyle, StyleRules> = {
  // claude-code, codex, cursor: schedules, working folders, projects and signals named in run text.
  scheduled: {
    filter: 'markers',
    ellipsis: '...',
    keyActions: 8,
    details: (automation) => `Schedule: ${textField(automation.table, 'rrule') || 'unspecified'}.`,
    heading: (automation) => [`automation_id: ${automation.id}`],
    cwd: (automation, { reader }) =>
      stringItems(automation.table, 'cwds', automation.tomlFile, reader)[0] ?? automation.folder,
    files: (automation) =>
      automation.memoryFile ? [automation.tomlFile, automation.memoryFile] : [automation.tomlFile],
    evidence(_, run, { variant, signals }) {
      const projects = runProjects(run, variant.hints);
      return {
        focus: projects,
        entities: [
          ...projects.map((name) => ({
            name,
            type: 'project',
            summary: `Project mentioned by ${variant.label} automation run memory.`,
            tags: [variant.tag, 'automation-evidence'],
          })),
          ...runSignals(run, signals).map((name) => ({
            name,
            type: 'automation-signal',
            summary: `Signal class inferred from ${variant.label} automation run memory.`,
            tags: [variant.tag, 'automation-signal'],
          })),
        ],
      };
    },
  },
  // copilot: triggers and kinds, the repositories an automation targets.
  triggered: {
    filter: 'runtime-only',
    ellipsis: '…',
    keyActions: 9,
    details: (automation) =>
      `Trigger: ${textField(automation.table, 'trigger') || 'unspecified'}. ` +
      `Kind: ${textField(automation.table, 'kind') || 'unspecified'}.`,
    heading(automation) {
      const trigger = textField(automation.table, 'trigger');
      return [
        `automation: ${automation.id}`,
        trigger ? `trigger: ${trigger}` : `kind: ${textField(automation.table, 'kind')}`,
      ];
    },
    cwd: (automation) => automation.folder,
    files: (automation) => [automation.tomlFile],
    evidence(automation, _, { variant, reader }) {
      const repos = stringItems(automation.table, 'repos', automation.tomlFile, reader);
      return {
        focus: repos,
        entities: repos.map((name) => ({
          name,
          type: 'project',
          summary: `Repository targeted by ${variant.label} automation.`,
          tags: [variant.tag, 'project'],
        })),
      };
    },
  },
};

/** What the rules build: sessions in run order, entities in the engine's order. */
interface Built {
  sessions: Session[];
  entities: Entity[];
}

/**
 * One entity per automation (a later one with the same id replaces its content, in its place),
 * one session per kept run, and — walking the runs newest first — an entity for each name a run
 * evidences that is not an entity yet.
 */
function build(automations: readonly Automation[], runs: readonly AutomationRun[], context: Context): Built {
  const { variant } = context;
  const rules = STYLES[variant.style];
  const entities = new Map<string, Entity>();
  for (const automation of automations) {
    entities.set(automation.id, {
      name: automation.id,
      type: 'automation',
      summary: collapseAndCut(
        `${variant.label} automation '${automation.name}' (${automation.status}). ${rules.details(automation)}`,
        SUMMARY_LIMIT,
        rules.ellipsis,
      ),
      tags: [variant.tag, 'automation', automation.status.toLowerCase()],
      visibility: 'team',
    });
  }
  const sessions = runs.map(({ automation, run }) => {
    const evidence = rules.evidence(automation, run, context);
    for (const entity of evidence.entities) {
      if (!entities.has(entity.name))
        entities.set(entity.name, { ...entity, last_touched: run.date, visibility: 'team' });
    }
    const session: Session = {
      date: run.date,
      cwd: rules.cwd(automation, context),
      project_focus: evidence.focus,
      key_actions: [
        ...rules.heading(automation),
        `run: ${runTitle(automation.name, run, rules.ellipsis)}`,
        ...run.actions,
      ].slice(0, rules.keyActions),
      files_touched: rules.files(automation),
      visibility: 'team',
    };
    return session;
  });
  return { sessions, entities: [...entities.values()] };
}

function manifestOf(variant: AutomationVariant, environment: ExportEnvironment, built: Built): Manifest {
  return assembleManifest({
    agent: {
      id: variant.agentId,
      type: 'other',
      instance: environment.hostname,
      spec_version_compat: variant.specVersionCompat,
      role_narrative: variant.roleNarrative,
    },
    now: environment.now,
    capabilities: variant.capabilities,
    sessions: built.sessions,
    // Only an automation's status can be a private tag: that entity goes, its sessions stay.
    entities: federationFilter(built.entities, PRIVATE_TAGS),
    policy: { default: 'team', private_tags: PRIVATE_TAGS, team_tags: variant.teamTags },
  });
}

function automationsSource(
  variant: AutomationVariant,
  environment: ExportEnvironment,
  reader: SourceReader,
): SourceStatus {
  const dir = variant.directory(environment);
  return reader.isDir(dir)
    ? { name: 'automations', path: dir, found: true, modified: modifiedAt(dir) }
    : { name: 'automations', path: dir, found: false };
}

/** A reader bounded to the home and the automations folder (which the user may keep elsewhere). */
function readerFor(variant: AutomationVariant, environment: ExportEnvironment): SourceReader {
  // The automations folder is a source root (a link in it may not lead out of it), allowed
  // wherever its variable puts it; the home is only where sources may lie.
  const reader = new SourceReader([environment.home]);
  reader.allow(variant.directory(environment));
  return reader;
}

async function exportAutomations(
  variant: AutomationVariant,
  environment: ExportEnvironment,
): Promise<ParticipantExport> {
  const reader = readerFor(variant, environment);
  const source = automationsSource(variant, environment, reader);
  if (!source.found) {
    const manifest =
      variant.whenMissing === 'no-manifest'
        ? undefined
        : manifestOf(variant, environment, { sessions: [], entities: [] });
    return { manifest, sources: [source], warnings: reader.warnings };
  }
  const automations = readAutomations(reader, source.path, STYLES[variant.style].filter);
  const runs = keptRuns(automations, sinceRules(environment));
  const built = build(automations, runs, { variant, reader, signals: compileSignals(variant.signals) });
  return { manifest: manifestOf(variant, environment, built), sources: [source], warnings: reader.warnings };
}

function automationParticipant(variant: AutomationVariant): Participant {
  return {
    agentId: variant.agentId,
    // Each automation's automation.toml and memory.md, under the automations folder.
    watch: { follow: 'sources', files: /(?:^|[\\/])(?:automation\.toml|memory\.md)$/ },
    topic: variant.agentId,
    help: variant.help,
    sources: async (environment) => [automationsSource(variant, environment, readerFor(variant, environment))],
    export: (environment) => exportAutomations(variant, environment),
  };
}

export const claudeCodeAutomationsParticipant = automationParticipant(CLAUDE_CODE_AUTOMATIONS);
export const codexAutomationsParticipant = automationParticipant(CODEX_AUTOMATIONS);
export const cursorAutomationsParticipant = automationParticipant(CURSOR_AUTOMATIONS);
export const copilotAutomationsParticipant = automationParticipant(COPILOT_AUTOMATIONS);
