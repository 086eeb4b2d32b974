import * as z from 'zod';
import { compileCodexTurn } from '../../core/operations/reads.js';
import { defineTool } from './common.js';

export const compileCodexTurnTool = defineTool({
  name: 'compile_codex_turn',
  description: 'Codex turn brief. Deferred in this server: answers with a `_status: "deferred"` payload.',
  schema: z.object({
    prompt: z.string(),
    cwd: z.string().nullable().optional(),
    access_level: z.string().optional().default('team'),
    max_items: z.number().int().optional().default(6),
    max_chars: z.number().int().optional().default(1800),
  }),
  run: compileCodexTurn,
});
