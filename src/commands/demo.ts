import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Flags } from '@oclif/core';
import { BaseCommand, NO_LIBRARY_FLAGS } from '../cli/base-command.js';
import { colors, wrap } from '../cli/output.js';
import { stderrLine } from '../cli/width.js';
import { installDemoLibrary, recordDemoHistory } from '../core/admin/demo-library.js';
import { packageRoot } from '../core/admin/package-root.js';
import type { CrossAgentSummaryAnswer, FindEntityAnswer, ListAgentsOutput } from '../core/operations/reads.js';
import type { RecognitionAnswer } from '../core/operations/prompt-reads.js';
import type { ListRecentWorkAnswer } from '../core/operations/recent-work.js';

/** What the demo shows: the library it made and the answers of the tools it called. */
interface DemoPayload {
  library: string;
  agents: string[];
  recognition: RecognitionAnswer;
  found: FindEntityAnswer;
  recent: ListRecentWorkAnswer;
  summary: CrossAgentSummaryAnswer;
}

export default class Demo extends BaseCommand {
  static override baseFlags = NO_LIBRARY_FLAGS;
  static override summary = 'See federation work on a built-in sample library.';
  static override description =
    'Copies a small invented library (four agents working on one app, with a few versions of codex, writes staged by members openclaw and scout and the rows.yaml the commit examples read) to a temp folder, starts `bourdon serve` on it, connects a real MCP client over stdio and asks the questions an agent asks at the start of a turn. Nothing outside the temp folder is touched.';
  static override examples = ['<%= config.bin %> demo', '<%= config.bin %> demo --keep'];
  static override flags = {
    keep: Flags.boolean({ description: 'Keep the demo library and print where it is.', default: false }),
  };

  async run(): Promise<DemoPayload> {
    const { flags } = await this.parse(Demo);
    const c = colors();
    const root = installDemoLibrary(fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-demo-')));
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-demo-home-'));
    const { Client } = await import('@modelcontextprotocol/client');
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    const runJs = path.join(packageRoot(), 'bin', 'run.js');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [runJs, 'serve', '--library', root],
      env: { BOURDON_HOME: home, BOURDON_LOCAL_NAME: 'demo-machine', NO_COLOR: '1' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'bourdon-demo', version: '1.0.0' });
    // The demo library answers every call it makes (no refusal): each answer is the tool's own.
    const call = async <A>(name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      const [first] = result.content as { text: string }[];
      if (first === undefined) throw new Error(`${name} answered no content`);
      return JSON.parse(first.text) as A;
    };
    try {
      // Versions, a staged write and rows.yaml: what the README's and --help's examples use.
      await recordDemoHistory(root, home);
      await client.connect(transport);
      const { tools } = await client.listTools();
      // Each line wraps at the width, continued under its text: the demo explains what it shows,
      // and a sentence cut at the terminal's edge would lose its point.
      const out: string[] = [];
      const say = (line = '', continuation?: number) => out.push(wrap(line, { continuation }));
      say(
        c.bold('Bourdon demo') +
          c.dim(` — a real MCP client talking to \`bourdon serve\` over stdio (${tools.length} tools)`),
      );
      say(c.dim(`library: ${root}`));
      say();

      const { agents } = await call<ListAgentsOutput>('list_agents', {});
      say(`${c.cyan('list_agents')} → ${agents.join(', ')}`);
      say();

      const prompt = 'codex, can you pick up the sync engine bug before release 2.4?';
      const recognition = await call<RecognitionAnswer>('prepare_recognition_context', { prompt });
      say(`${c.cyan('prepare_recognition_context')} ${c.dim(`"${prompt}"`)}`);
      say(`  ${c.green(recognition.recognition)}`);
      for (const entity of recognition.matched_entities) {
        say(`  - ${entity.name} is known by ${entity.source_agents.join(', ')}`);
      }
      say();

      const found = await call<FindEntityAnswer>('find_entity', { name: 'sync engine' });
      say(`${c.cyan('find_entity')} ${c.dim('"sync engine"')} — what codex learns from the others:`);
      for (const match of found.matches) {
        for (const [agent, summary] of Object.entries(match.summaries)) {
          if (agent !== 'codex') say(`  ${c.bold(agent)} says: ${summary}`);
        }
      }
      say();

      const recent = await call<ListRecentWorkAnswer>('list_recent_work', { summary: false, limit: 5 });
      say(`${c.cyan('list_recent_work')} ${c.dim('(last 14 days, public rows)')}`);
      for (const session of recent.sessions) {
        const lead = `  ${session.date}  ${session.agent.padEnd(12)} `;
        say(`${lead}${session.project_focus.join(', ')}: ${(session.key_actions ?? []).join('; ')}`, lead.length);
      }
      say();

      const summary = await call<CrossAgentSummaryAnswer>('get_cross_agent_summary', {
        project: 'Release 2.4',
        access_level: 'team',
      });
      say(
        `${c.cyan('get_cross_agent_summary')} ${c.dim('"Release 2.4" at team access')} → agents: ${summary.agents.join(', ')}`,
      );
      for (const session of summary.recent_sessions) {
        say(`  ${session.date}  ${session.agent}: ${(session.key_actions ?? []).join('; ')}`);
      }
      say();
      const hidden = await call<FindEntityAnswer>('find_entity', { name: 'Personal Budget' });
      say(
        `${c.cyan('find_entity')} ${c.dim('"Personal Budget"')} → ${hidden.matches.length} matches at public access ${c.dim('(the row is private: it never leaves the machine unless asked for locally)')}`,
      );
      say();
      say(`Next: ${c.bold('bourdon serve')} wires your own library into an MCP host; see README.md.`);
      return this.emit({ library: root, agents, recognition, found, recent, summary }, () => out.join('\n'));
    } finally {
      await client.close().catch(() => {});
      fs.rmSync(home, { recursive: true, force: true });
      if (flags.keep) process.stderr.write(stderrLine(`demo library kept at ${root}`));
      else fs.rmSync(root, { recursive: true, force: true });
    }
  }
}
