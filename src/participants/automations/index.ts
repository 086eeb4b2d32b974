/**
 * The automation participants — claude-code-automations, codex-automations, cursor-automations
 * and copilot-automations — one implementation configured by variants.ts: the automations of
 * one folder (automations.ts), their runs (runs.ts), and the sessions and entities the engine
 * builds from them (conformance/participants/README.md, "claude_code_automations" and after).
 */
import { byCodePoint, modifiedAt, SourceReader } from '../files.js';
import {
  AGENT_KEYS,
  ENTITY_KEYS,
  type Entity,
  federationFilter,
  isoSeconds,
  MANIFEST_KEYS,
  POLICY_KEYS,
  SESSION_KEYS,
  SPEC_VERSION,
  shaped,
} from '../manifest-shape.js';
import type { ExportEnvironment, Participant, ParticipantExport, SourceStatus } from '../participant.js';
import { collapseAndCut } from '../scrub.js';
import { readAutomations, stringItems, textField, type Automation } from './automations.js';
import { compileSignals, runProjects, runSignals, runTitle, type Run } from './runs.js';
import {
  CLAUDE_CODE_AUTOMATIONS,
  CODEX_AUTOMATIONS,
  COPILOT_AUTOMATIONS,
  CURSOR_AUTOMATIONS,
  type AutomationVariant,
} from './variants.js';

const PRIVATE_TAGS = ['personal', 'financial', 'credential', 'health', 'family', 'legal'];
const SUMMARY_LIMIT = 260;
/** key_actions per session: the automation line(s), the title, the actions. */
const SCHEDULED_KEY_ACTIONS = 8;
const TRIGGERED_KEY_ACTIONS = 9;

/** One kept run of one automation. */
interface AutomationRun {
  readonly automation: Automation;
  readonly run: Run;
}

/** The runs on or after `since`, newest first: by (date, id) descending, ties in automation then file order. */
function keptRuns(automations: readonly Automation[], since: string | undefined): AutomationRun[] {
  const runs = automations.flatMap((automation) =>
    automation.runs.filter((run) => !since || run.date >= since).map((run) => ({ automation, run })),
  );
  // Array.prototype.sort is stable: equal keys keep their order.
  return runs.sort((a, b) => byCodePoint(b.run.date, a.run.date) || byCodePoint(b.automation.id, a.automation.id));
}

/** What the variant's rules build: sessions in run order, entities in the engine's order. */
interface Built {
  sessions: Record<string, unknown>[];
  entities: Entity[];
}

/** claude-code, codex, cursor: schedules, working folders, projects and signals named in run text. */
function buildScheduled(
  variant: AutomationVariant,
  automations: readonly Automation[],
  runs: readonly AutomationRun[],
  reader: SourceReader,
): Built {
  const signals = compileSignals(variant.signals);
  const entities = new Map<string, Entity>();
  for (const automation of automations) {
    const rrule = textField(automation.table, 'rrule');
    entities.set(automation.id, {
      name: automation.id,
      type: 'automation',
      summary: collapseAndCut(
        `${variant.label} automation '${automation.name}' (${automation.status}). Schedule: ${rrule || 'unspecified'}.`,
        SUMMARY_LIMIT,
        '...',
      ),
      tags: [variant.tag, 'automation', automation.status.toLowerCase()],
      visibility: 'team',
    });
  }
  const evidence = (name: string, type: string, summary: string, tag: string, date: string) => {
    if (!entities.has(name)) {
      entities.set(name, { name, type, summary, last_touched: date, tags: [variant.tag, tag], visibility: 'team' });
    }
  };
  const sessions = runs.map(({ automation, run }) => {
    const projects = runProjects(run, variant.hints);
    for (const project of projects) {
      evidence(
        project,
        'project',
        `Project mentioned by ${variant.label} automation run memory.`,
        'automation-evidence',
        run.date,
      );
    }
    for (const signal of runSignals(run, signals)) {
      evidence(
        signal,
        'automation-signal',
        `Signal class inferred from ${variant.label} automation run memory.`,
        'automation-signal',
        run.date,
      );
    }
    const cwds = stringItems(automation.table, 'cwds', automation.tomlFile, reader);
    return shaped(
      {
        date: run.date,
        cwd: cwds[0] ?? automation.folder,
        project_focus: projects,
        key_actions: [
          `automation_id: ${automation.id}`,
          `run: ${runTitle(automation.name, run, '...')}`,
          ...run.actions,
        ].slice(0, SCHEDULED_KEY_ACTIONS),
        files_touched: automation.memoryFile ? [automation.tomlFile, automation.memoryFile] : [automation.tomlFile],
        visibility: 'team',
      },
      SESSION_KEYS,
    );
  });
  return { sessions, entities: [...entities.values()] };
}

/** copilot: triggers and kinds, the repositories an automation targets. */
function buildTriggered(
  variant: AutomationVariant,
  automations: readonly Automation[],
  runs: readonly AutomationRun[],
  reader: SourceReader,
): Built {
  const entities = new Map<string, Entity>();
  for (const automation of automations) {
    const trigger = textField(automation.table, 'trigger');
    const kind = textField(automation.table, 'kind');
    entities.set(automation.id, {
      name: automation.id,
      type: 'automation',
      summary: collapseAndCut(
        `${variant.label} automation '${automation.name}' (${automation.status}). ` +
          `Trigger: ${trigger || 'unspecified'}. Kind: ${kind || 'unspecified'}.`,
        SUMMARY_LIMIT,
        '…',
      ),
      tags: [variant.tag, 'automation', automation.status.toLowerCase()],
      visibility: 'team',
    });
  }
  const sessions = runs.map(({ automation, run }) => {
    const repos = stringItems(automation.table, 'repos', automation.tomlFile, reader);
    for (const repo of repos) {
      if (entities.has(repo)) continue;
      entities.set(repo, {
        name: repo,
        type: 'project',
        summary: `Repository targeted by ${variant.label} automation.`,
        last_touched: run.date,
        tags: [variant.tag, 'project'],
        visibility: 'team',
      });
    }
    const trigger = textField(automation.table, 'trigger');
    return shaped(
      {
        date: run.date,
        cwd: automation.folder,
        project_focus: repos,
        key_actions: [
          `automation: ${automation.id}`,
          trigger ? `trigger: ${trigger}` : `kind: ${textField(automation.table, 'kind')}`,
          `run: ${runTitle(automation.name, run, '…')}`,
          ...run.actions,
        ].slice(0, TRIGGERED_KEY_ACTIONS),
        files_touched: [automation.tomlFile],
        visibility: 'team',
      },
      SESSION_KEYS,
    );
  });
  return { sessions, entities: [...entities.values()] };
}

function manifestOf(variant: AutomationVariant, environment: ExportEnvironment, built: Built): Record<string, unknown> {
  return shaped(
    {
      spec_version: SPEC_VERSION,
      agent: shaped(
        {
          id: variant.agentId,
          type: 'other',
          instance: environment.hostname,
          spec_version_compat: variant.specVersionCompat,
          role_narrative: variant.roleNarrative,
        },
        AGENT_KEYS,
      ),
      last_updated: isoSeconds(environment.now),
      capabilities: variant.capabilities,
      recent_sessions: built.sessions,
      // Only an automation's status can be a private tag: that entity goes, its sessions stay.
      known_entities: federationFilter(built.entities, PRIVATE_TAGS).map((entity) => shaped(entity, ENTITY_KEYS)),
      visibility_policy: shaped(
        { default: 'team', private_tags: PRIVATE_TAGS, team_tags: variant.teamTags },
        POLICY_KEYS,
      ),
    },
    MANIFEST_KEYS,
  );
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
  return new SourceReader([environment.home, variant.directory(environment)]);
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
  const style = variant.style;
  const automations = readAutomations(reader, source.path, style === 'scheduled' ? 'markers' : 'runtime-only');
  const runs = keptRuns(automations, environment.since);
  const built = (style === 'scheduled' ? buildScheduled : buildTriggered)(variant, automations, runs, reader);
  return { manifest: manifestOf(variant, environment, built), sources: [source], warnings: reader.warnings };
}

function automationParticipant(variant: AutomationVariant): Participant {
  return {
    agentId: variant.agentId,
    topic: variant.agentId,
    sources: async (environment) => [automationsSource(variant, environment, readerFor(variant, environment))],
    export: (environment) => exportAutomations(variant, environment),
  };
}

export const claudeCodeAutomationsParticipant = automationParticipant(CLAUDE_CODE_AUTOMATIONS);
export const codexAutomationsParticipant = automationParticipant(CODEX_AUTOMATIONS);
export const cursorAutomationsParticipant = automationParticipant(CURSOR_AUTOMATIONS);
export const copilotAutomationsParticipant = automationParticipant(COPILOT_AUTOMATIONS);
