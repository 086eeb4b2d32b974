import * as z from 'zod';
import { prepareRecognitionContext } from '../../core/operations/reads.js';
import { accessShape, defineTool, federationHop } from './common.js';

export const prepareRecognitionContextTool = defineTool({
  name: 'prepare_recognition_context',
  description:
    'Call at the start of a turn: which known entities the prompt mentions, a one-line recognition and a short context block.',
  schema: z.object({ prompt: z.string(), ...accessShape('team'), federation_hop: federationHop }),
  run: prepareRecognitionContext,
});
