import { Args, Flags } from '@oclif/core';
import { BaseCommand, stderrWarn } from '../cli/base-command.js';
import { colors, plural } from '../cli/output.js';
import { listMemoryVersions, type VersionView } from '../core/writes/versions.js';
import { commitArgsFromText, readInput } from '../cli/input.js';
import { commitToFederation } from '../core/writes/commit.js';
import { invalidWriteAgentIdMessage, isValidAgentId } from '../core/store/ids.js';
import { AGENT_TYPES } from '../core/store/manifest.js';
import type { Payload } from '../core/payload.js';
import { commitError, type CommitArgs } from '../core/writes/writes.js';

export default class Commit extends BaseCommand {
  static override summary = "Write entities, sessions and notes to an agent's manifest.";
  static override description =
    "Merges (default) or replaces rows in agents/<agent_id>.l5.yaml exactly as the commit_to_federation tool does: entities dedupe by lower-cased name, sessions by (date, cwd), notes by (date, text), list fields are unioned. The input is YAML or JSON, from --file or stdin (--file -), either the tool's shape ({entities, sessions, notes}) or an L5 manifest ({known_entities, recent_sessions, notes}); at most 4 MiB. Every write holds the library lock and is recorded as a new version (see `bourdon history`).";
  static override examples = [
    '<%= config.bin %> commit notes-bot --agent-type note-capture --file rows.yaml',
    'echo \'{"entities":[{"name":"Roadmap","type":"draft"}]}\' | <%= config.bin %> commit notes-bot --file - --json',
    '<%= config.bin %> commit codex --mode replace --agent-type code-assistant --file codex.l5.yaml',
  ];
  static override args = {
    agent_id: Args.string({ description: 'Agent id (^[a-z0-9][a-z0-9_-]*$).', required: true }),
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

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Commit);
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
      input = commitArgsFromText(text, label, stderrWarn);
    }
    const commit: CommitArgs = { ...input, agent_id: args.agent_id };
    if (flags['agent-type']) commit.agent_type = flags['agent-type'];
    if (flags.mode) commit.mode = flags.mode;
    if (flags.instance !== undefined) commit.instance = flags.instance;
    if (flags.role !== undefined) commit.role_narrative = flags.role;
    this.assertAgentTypeForNew(ctx, args.agent_id, commit.agent_type, commit.mode ?? undefined);
    const heldBefore = await currentVersionOf(ctx, args.agent_id);
    const payload = await commitToFederation(ctx, commit);
    this.failOnPayloadError(payload);
    // A write that changes nothing records no version: the payload names the version in place.
    const unchanged = heldBefore !== null && payload.version === heldBefore;
    this.emit(payload, () => renderCommit(payload, unchanged));
  }
}

/** The version the agent's live file holds now (null when none is recorded). */
export async function currentVersionOf(ctx: Parameters<typeof listMemoryVersions>[0], agentId: string) {
  const listing = await listMemoryVersions(ctx, { agent_id: agentId, limit: 1 });
  return (listing.versions as VersionView[] | undefined)?.find((v) => v.current)?.version ?? null;
}

function renderCommit(payload: Payload, unchanged: boolean): string {
  const c = colors();
  const n = (key: string) => Number(payload[key] ?? 0);
  const totals = c.dim(
    `${String(payload.path)} holds ${plural(n('total_entities'), 'entity', 'entities')}, ${plural(n('total_sessions'), 'session')}, ${plural(n('total_notes'), 'note')}`,
  );
  if (unchanged)
    return `${c.cyan('unchanged')} ${String(payload.agent_id)}: the rows are already there; still ${c.bold(`version ${String(payload.version)}`)}, nothing written\n${totals}`;
  return (
    `${c.green('committed')} ${String(payload.agent_id)} ${c.bold(`version ${String(payload.version)}`)}: ` +
    `+${plural(n('entities_added'), 'entity', 'entities')} (${n('entities_updated')} updated), ` +
    `+${plural(n('sessions_added'), 'session')} (${n('sessions_updated')} updated), +${plural(n('notes_added'), 'note')}\n` +
    totals
  );
}
