#!/usr/bin/env node
// Development entry: same commands, oclif's development mode (full error output, no manifest cache).
// Run `npm run build` (or `npx tsc -w`) first: commands load from dist/.
import { execute, settings } from '@oclif/core';

// Commands always load from the compiled dist/, whatever NODE_ENV says (no TS loader ships).
settings.enableAutoTranspile = false;

await execute({ development: true, dir: import.meta.url });
