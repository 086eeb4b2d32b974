import * as z from 'zod';
import { commitToFederation } from '../../core/writes/commit.js';
import { defineTool, optionalText } from './common.js';

const rows = (what: string) => z.array(z.record(z.string(), z.unknown())).nullable().default(null).describe(what);

export const commitToFederationTool = defineTool({
  name: 'commit_to_federation',
  description:
    "Write to an agent's manifest in the library: merge (default) or replace its entities, sessions and notes. Entities dedupe by lower-cased name, sessions by (date, cwd), notes by (date, text); list fields are unioned. agent_type is required for a new manifest. Answers the write summary with the new version. Quarantined members may write only their own id, and their writes are staged for an operator's review.",
  schema: z.object({
    agent_id: z.string().describe('The agent id: ^[a-z0-9][a-z0-9_-]*$, at most 64 characters.'),
    agent_type: optionalText.describe(
      'L5 agent type (code-assistant, note-capture, local-swarm, customer-support, research-assistant, creative-collaborator, project-manager, tutor, other).',
    ),
    instance: optionalText,
    role_narrative: optionalText,
    entities: rows(
      'Entity rows: name (required), type, aliases, summary, last_touched, valid_from, valid_to, tags, visibility.',
    ),
    sessions: rows('Session rows: date (required), cwd, project_focus, key_actions, files_touched, visibility.'),
    notes: rows(
      'Note rows: date (required; a day or an ISO datetime), text (required), title, tags, project_focus, visibility.',
    ),
    mode: z.string().optional().default('merge').describe("'merge' or 'replace'."),
  }),
  namespace: (args) => args.agent_id,
  run: (ctx, args) => commitToFederation(ctx, args),
});
