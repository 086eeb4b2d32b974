#!/usr/bin/env node
// Development entry: same commands, oclif's development mode (full error output, no manifest cache).
// Run `npm run build` (or `npx tsc -w`) first: commands load from dist/.
import { execute } from '@oclif/core';

await execute({ development: true, dir: import.meta.url });
