import * as z from 'zod';
import { compileCodexTurn } from '../../core/operations/reads.js';
import { defineTool, integerWithDefault, optionalText } from './common.js';

export const compileCodexTurnTool = defineTool({
  name: 'compile_codex_turn',
  description: 'Codex turn brief. Deferred in this server: answers with a `_status: "deferred"` payload.',
  schema: z.object({
    prompt: z.string(),
    cwd: optionalText,
    access_level: z.string().optional().default('team'),
    max_items: integerWithDefault(6),
    max_chars: integerWithDefault(1800),
  }),
  run: compileCodexTurn,
});
