#!/usr/bin/env node
// `bourdon-l6-server`: the MCP server under the Python engine's flag names (`bourdon serve`).
import { execute, settings } from '@oclif/core';

// Commands always load from the compiled dist/, whatever NODE_ENV says (no TS loader ships).
settings.enableAutoTranspile = false;
import { translateServerArgs } from '../dist/mcp/server-args.js';

await execute({ dir: import.meta.url, args: ['serve', ...translateServerArgs(process.argv.slice(2))] });
