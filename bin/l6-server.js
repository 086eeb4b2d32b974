#!/usr/bin/env node
// `bourdon-l6-server`: the MCP server under the Python engine's flag names (`bourdon serve`).
import { execute } from '@oclif/core';
import { translateServerArgs } from '../dist/mcp/server-args.js';

await execute({ dir: import.meta.url, args: ['serve', ...translateServerArgs(process.argv.slice(2))] });
