#!/usr/bin/env node
// `bourdon-l6-server`: the MCP server under the Python engine's flag names (`bourdon serve`).
import { translateServerArgs } from '../dist/mcp/server-args.js';

const { run } = await import('../dist/bundle/cli.js');
await run(['serve', ...translateServerArgs(process.argv.slice(2))], import.meta.url);
