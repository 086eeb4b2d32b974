import * as z from 'zod';
import { listNotes } from '../../core/operations/notes.js';
import {
  accessShape,
  agentFilterNamespace,
  defineTool,
  federationHop,
  optionalInteger,
  optionalText,
} from './common.js';

export const listNotesTool = defineTool({
  name: 'list_notes',
  description:
    'Notes agents left, newest first: since a day (default: the last 14 days), filtered by agent, tag or project, paged with cursors. Note texts are redacted.',
  schema: z.object({
    since: optionalText.describe('YYYY-MM-DD or an ISO datetime; its calendar day as written.'),
    agent: optionalText,
    tag: optionalText.describe('Only notes with this tag (case-insensitive).'),
    project: optionalText.describe('Only notes whose project_focus names this project (case-insensitive).'),
    ...accessShape('public'),
    limit: optionalInteger('Page size, 1 to 100 (default 20).'),
    cursor: optionalText,
    federation_hop: federationHop,
  }),
  namespace: agentFilterNamespace,
  denialExtras: { notes: [], next_cursor: null, has_more: false },
  run: listNotes,
});
