import { Args, Flags } from '@oclif/core';
import { BaseCommand, cliWarn } from '../cli/base-command.js';
import { colors, plural } from '../cli/output.js';
import { commitArgsFromText, readInput } from '../cli/input.js';
import { inputDescription, invoke } from '../core/operations/invoke.js';
import { invalidWriteAgentIdMessage, isValidAgentId } from '../core/store/ids.js';
import { AGENT_TYPES, isObject } from '../core/store/manifest.js';
import { failed } from '../core/payload.js';
import type { OperationContext } from '../core/context.js';
import { commitToFederationOperation, listMemoryVersionsOperation } from '../core/operations/write-operations.js';
import { commitError, type CommitArgs, type CommitSummary } from '../core/writes/writes.js';
import { precheckCommit } from '../core/writes/commit-input.js';
import type { StagedCommit } from '../core/writes/staging.js';

export default class Commit extends BaseCommand {
  static override summary = "Write entities, sessions and notes to an agent's manifest.";
  static override description = `Merges (default) or replaces rows in agents/<agent_id>.l5.yaml exactly as the ${commitToFederationOperation.name} tool does: entities dedupe by lower-cased name, sessions by (date, cwd), notes by (date, text), list fields are unioned. The input is YAML or JSON, from --file or stdin (--file -), either the tool's shape ({entities, sessions, notes}) or an L5 manifest ({known_entities, recent_sessions, notes}); at most 4 MiB. Every write holds the library lock and is recorded as a new version (see \`bourdon history\`).`;
  static override examples = [
    '<%= config.bin %> commit notes-bot --agent-type note-capture --file rows.yaml',
    'echo \'{"entities":[{"name":"Roadmap","type":"draft"}]}\' | <%= config.bin %> commit notes-bot --agent-type note-capture --file - --json',
    '<%= config.bin %> commit notes-bot --mode replace --agent-type note-capture --file rows.yaml',
  ];
  static override args = {
    agent_id: Args.string({ description: inputDescription(commitToFederationOperation, 'agent_id'), required: true }),
  };
  static override flags = {
    file: Flags.string({ char: 'f', description: 'YAML or JSON input; - reads stdin.', helpValue: '<path|->' }),
    'agent-type': Flags.string({
      description: 'Agent type (required for a new manifest and with --mode replace).',
      options: [...AGENT_TYPES],
      helpValue: '<type>',
    }),
    mode: Flags.string({ description: 'merge (default) or replace.', options: ['merge', 'replace'] }),
    instance: Flags.string({ description: 'agent.instance (machine or deployment).' }),
    role: Flags.string({ description: 'agent.role_narrative.' }),
  };

  async run(): Promise<CommitSummary | StagedCommit> {
    const { args, flags } = await this.parse(Commit);
    this.auditAs(commitToFederationOperation.name, args.agent_id);
    const ctx = this.openContext(flags.library);
    // An id that could name a path outside the library is refused before any input is read.
    if (!isValidAgentId(args.agent_id)) {
      this.failOnPayloadError(
        commitError({ agent_id: args.agent_id, mode: flags.mode }, invalidWriteAgentIdMessage(args.agent_id)),
      );
    }
    let input: Omit<CommitArgs, 'agent_id'> = {};
    if (flags.file !== undefined) {
      const { text, label } = await readInput(flags.file);
      input = commitArgsFromText(text, label, cliWarn);
    }
    const commit: CommitArgs = { ...input, agent_id: args.agent_id };
    if (flags['agent-type']) commit.agent_type = flags['agent-type'];
    if (flags.mode) commit.mode = flags.mode;
    if (flags.instance !== undefined) commit.instance = flags.instance;
    if (flags.role !== undefined) commit.role_narrative = flags.role;
    // The engine's row checks first, in its words (the tool's schema would refuse a row that is
    // not a mapping in the SDK's): a CLI user sees what the engine would say of the same input.
    const problem = precheckCommit(commit);
    if (problem) return this.failOnPayloadError(commitError(commit, problem));
    this.assertAgentTypeForNew(ctx, args.agent_id, commit.agent_type, commit.mode ?? undefined);
    const heldBefore = await currentVersionOf(ctx, args.agent_id);
    const payload = await invoke(commitToFederationOperation, ctx, {
      ...commit,
      // Every row is a mapping (checked above): the filter only tells the type so.
      entities: commit.entities?.filter(isObject),
      sessions: commit.sessions?.filter(isObject),
      notes: commit.notes?.filter(isObject),
      mode: commit.mode ?? undefined,
    });
    if (failed(payload)) return this.failOnPayloadError(payload);
    this.auditDone(payload.staged ? 'staged' : `version ${payload.version}`);
    // The operator's write is live; a member's would be staged (library use only).
    if (payload.staged) return this.emit(payload, () => payload.note);
    // A write that changes nothing records no version: the payload names the version in place.
    const unchanged = heldBefore !== null && payload.version === heldBefore;
    return this.emit(payload, () => renderCommit(payload, unchanged));
  }
}

/** The version the agent's live file holds now (null when none is recorded). */
export async function currentVersionOf(ctx: OperationContext, agentId: string): Promise<number | null> {
  const listing = await invoke(listMemoryVersionsOperation, ctx, { agent_id: agentId, limit: 1 });
  if (failed(listing)) return null;
  return listing.versions.find((v) => v.current)?.version ?? null;
}

function renderCommit(payload: CommitSummary, unchanged: boolean): string {
  const c = colors();
  const totals = c.dim(
    `${payload.path} holds ${plural(payload.total_entities, 'entity', 'entities')}, ${plural(payload.total_sessions, 'session')}, ${plural(payload.total_notes, 'note')}`,
  );
  if (unchanged)
    return `${c.cyan('unchanged')} ${payload.agent_id}: the rows are already there; still ${c.bold(`version ${payload.version}`)}, nothing written\n${totals}`;
  return (
    `${c.green('committed')} ${payload.agent_id} ${c.bold(`version ${payload.version}`)}: ` +
    `+${plural(payload.entities_added, 'entity', 'entities')} (${payload.entities_updated} updated), ` +
    `+${plural(payload.sessions_added, 'session')} (${payload.sessions_updated} updated), +${plural(payload.notes_added, 'note')}\n` +
    totals
  );
}
