// Deterministic homes for the export benches of issue 40's participants (bench/participants.js):
// each the largest input a user of that agent realistically has, in the shapes the recorded
// cases hold (test/fixtures/conformance/participants/<participant>/*_full/home). No randomness:
// every name, date and text is derived from its index.
import fs from 'node:fs';
import path from 'node:path';

export const words = (n, seed) => Array.from({ length: n }, (_, i) => `word${(i * 7 + seed) % 97}`).join(' ');
const pad = (n, width = 2) => String(n).padStart(width, '0');
/** A day of March–April 2026 for index n. */
const day = (n) => `2026-0${3 + (n % 2)}-${pad((n % 28) + 1)}`;
/** Epoch milliseconds in April 2026 for index n. */
const epochMs = (n) => Date.UTC(2026, 3, 1 + (n % 28), n % 24) + (n % 60) * 1000;
const uuid = (prefix, n) => `${prefix}-0000-4000-8000-${pad(n, 12)}`;
/** `n` shrunk by `fraction` (bench/engine.js --quick passes 0.1), at least 1. */
const part = (n, fraction) => Math.max(1, Math.round(n * fraction));
const thousands = (n) => n.toLocaleString('en-US');

function writer(home) {
  let bytes = 0;
  const write = (relative, text) => {
    const file = path.join(home, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    bytes += Buffer.byteLength(text);
  };
  return { write, bytes: () => bytes };
}

/** The YAML front matter memory file Windsurf Cascade and the Copilot convention keep. */
function memoryFile(entities, sessions, title) {
  const lines = ['---', ...(title ? [`# ${title}`] : []), 'entities:'];
  for (let n = 0; n < entities; n += 1) {
    lines.push(
      `  - name: "Memory ${n} ${words(2, n)}"`,
      `    type: ${['project', 'note', 'person', 'service', 'convention'][n % 5]}`,
      `    summary: "${words(24, n)}; see https://wiki.example.com/p/${n}"`,
      `    aliases: [m${n}, "memory-${n}"]`,
      `    tags: [t${n % 10}, ${n % 50 === 0 ? 'private' : 'bench'}]`,
      `    last_touched: ${day(n)}`,
    );
  }
  lines.push('sessions:');
  for (let n = 0; n < sessions; n += 1) {
    lines.push(
      `  - date: ${day(n)}`,
      `    cwd: /home/dev/project-${n % 40}`,
      '    key_actions:',
      `      - ${words(8, n)}`,
      `      - ${words(6, n + 1)}`,
      `    files_touched: [src/f${n % 30}.ts, docs/d${n % 7}.md]`,
    );
  }
  lines.push('---', '', words(200, 1), '');
  return lines.join('\n');
}

/** One automation folder: its automation.toml and a run log of `runs` dated runs. */
function automation(write, root, n, runs) {
  const id = `automation-${n}`;
  const kind = ['loop', 'monitor', 'cron'][n % 3];
  write(
    `${root}/${id}/automation.toml`,
    `version = 1\nid = "${id}"\nname = "Automation ${n} ${words(2, n)}"\nstatus = "${n % 4 ? 'ACTIVE' : 'PAUSED'}"\n` +
      `kind = "${kind}"\nrrule = "FREQ=WEEKLY;BYDAY=FR;BYHOUR=${n % 24}"\ncwds = ["/home/dev/project-${n % 40}"]\n`,
  );
  const log = [`# Automation ${n} memory`, ''];
  for (let run = 0; run < runs; run += 1) {
    log.push(`${day(n + run)} -- run ${run}`, `- ${words(12, n + run)}`, `- runtime: ${run % 9}m${pad(run % 60)}s`);
    log.push(`- ${words(10, n * 3 + run)}`, '');
  }
  write(`${root}/${id}/memory.md`, log.join('\n'));
}

/**
 * An automation home: 100 automations × 50 runs (a year of weekly runs), or at `scale` 2 twice
 * as many automations with twice the runs each (4 times the runs: 200 × 100).
 */
function automations(write, bytes, root, scale, fraction) {
  const count = part(100 * scale, fraction);
  const runs = 50 * scale;
  for (let n = 0; n < count; n += 1) automation(write, root, n, runs);
  return `${count} automations × ${runs} runs, ${(bytes() / 1e6).toFixed(1)} MB`;
}

/** A Copilot Chat transcript: session.start, then `turns` user turns (replies are never read, but are on disk). */
function transcript(n, targetBytes) {
  const id = uuid('5d0c8a1e', n);
  const lines = [
    JSON.stringify({
      type: 'session.start',
      id: `ev-${id}-0`,
      data: {
        sessionId: id,
        version: 1,
        producer: 'copilot-agent',
        copilotVersion: '0.30.0',
        vscodeVersion: '1.104.2',
        startTime: new Date(epochMs(n)).toISOString(),
      },
    }),
  ];
  let bytes = lines[0].length;
  for (let turn = 0; bytes < targetBytes; turn += 1) {
    const events = [
      { type: 'user.message', data: { content: `${turn ? '' : '/explain '}${words(20, n + turn)}`, attachments: [] } },
      { type: 'assistant.turn_start', data: { turnId: `t${turn}` } },
      {
        type: 'assistant.message',
        data: {
          messageId: `m${turn}`,
          content: words(300, n * 7 + turn),
          toolRequests: [],
          reasoningText: words(60, turn),
        },
      },
      { type: 'assistant.turn_end', data: { turnId: `t${turn}` } },
    ];
    for (const event of events) {
      const line = JSON.stringify(event);
      lines.push(line);
      bytes += line.length + 1;
    }
  }
  return lines.join('\n') + '\n';
}

/** The homes, by participant id. Each returns what it made, for the bench's line. */
export const HOMES = {
  cascade(home, _scale = 1, fraction = 1) {
    const { write, bytes } = writer(home);
    const [memories, sessions] = [part(5000, fraction), part(500, fraction)];
    write('.cascade-bourdon/memory.md', memoryFile(memories, sessions));
    return `${thousands(memories)} memories + ${sessions} sessions, ${(bytes() / 1e6).toFixed(1)} MB`;
  },
  copilot(home, _scale = 1, fraction = 1) {
    const { write, bytes } = writer(home);
    const [memories, sessions] = [part(2000, fraction), part(500, fraction)];
    write('.copilot-bourdon/memory.md', memoryFile(memories, sessions, 'Copilot Bourdon Memory'));
    return `${thousands(memories)} memories + ${sessions} sessions, ${(bytes() / 1e6).toFixed(1)} MB`;
  },
  'copilot-vscode'(home, _scale = 1, fraction = 1) {
    const { write, bytes } = writer(home);
    const storage = '.config/Code/User/workspaceStorage';
    // 500 workspaces, 200 MB of chat: 4 transcripts of ~100 KB each, two memory-tool notes.
    const workspaces = part(500, fraction);
    for (let w = 0; w < workspaces; w += 1) {
      const dir = `${storage}/${pad(w, 16)}`;
      write(`${dir}/workspace.json`, JSON.stringify({ folder: `file:///home/dev/project-${w}` }));
      for (let t = 0; t < 4; t += 1)
        write(
          `${dir}/GitHub.copilot-chat/transcripts/${uuid('5d0c8a1e', w * 4 + t)}.jsonl`,
          transcript(w * 4 + t, 100_000),
        );
      write(`${dir}/GitHub.copilot-chat/memory-tool/memories/notes.md`, `- ${words(10, w)}\n- ${words(8, w + 1)}\n`);
      write(`${dir}/GitHub.copilot-chat/memory-tool/memories/repo/project-${w}.md`, `- ${words(12, w)}\n`);
    }
    return `${workspaces} workspaces, ${thousands(workspaces * 4)} transcripts, ${(bytes() / 1e6).toFixed(1)} MB`;
  },
  'claude-code-automations'(home, scale = 1, fraction = 1) {
    const { write, bytes } = writer(home);
    write('.claude/settings.json', '{}\n');
    return automations(write, bytes, '.claude/automations', scale, fraction);
  },
  'codex-automations'(home, scale = 1, fraction = 1) {
    const { write, bytes } = writer(home);
    write('.codex/config.toml', 'model = "gpt-5"\n');
    return automations(write, bytes, '.codex/automations', scale, fraction);
  },
  'cursor-automations'(home, scale = 1, fraction = 1) {
    const { write, bytes } = writer(home);
    write('.cursor/argv.json', '{}\n');
    return automations(write, bytes, '.cursor/automations', scale, fraction);
  },
  'copilot-automations'(home, scale = 1, fraction = 1) {
    const { write, bytes } = writer(home);
    write('.copilot-bourdon/memory.md', memoryFile(20, 5, 'Copilot Bourdon Memory'));
    return automations(write, bytes, '.copilot-bourdon/automations', scale, fraction);
  },
  'claude-desktop-code'(home, _scale = 1, fraction = 1) {
    const { write, bytes } = writer(home);
    write('.config/Claude/claude_desktop_config.json', '{}\n');
    // 2,000 sessions over 4 accounts × 5 organisations.
    const sessions = part(2000, fraction);
    for (let n = 0; n < sessions; n += 1) {
      const folder = `.config/Claude/claude-code-sessions/${uuid('6c1f2a9e', n % 4)}/${uuid('b7e6d5c4', n % 5)}`;
      write(
        `${folder}/local_${uuid('0a1b2c3d', n)}.json`,
        JSON.stringify(
          {
            sessionId: `local_${uuid('0a1b2c3d', n)}`,
            cliSessionId: `cli-${n}`,
            cwd: `/home/dev/project-${n % 40}`,
            originCwd: `/home/dev/project-${n % 40}`,
            createdAt: epochMs(n),
            lastActivityAt: epochMs(n) + 3_600_000,
            model: 'claude-opus-4-1',
            effort: 'high',
            isArchived: n % 10 === 0,
            title: `Session ${n}: ${words(6, n)}`,
            titleSource: 'auto',
            permissionMode: 'acceptEdits',
            planPath: `/home/dev/.claude/plans/p${n}.md`,
            enabledMcpTools: { 'srv-1:read_file': true, 'srv-1:write_file': n % 2 === 0, 'srv-2:search': false },
          },
          null,
          2,
        ),
      );
    }
    return `${thousands(sessions)} sessions, ${(bytes() / 1e6).toFixed(1)} MB`;
  },
  'claude-desktop-cowork'(home, _scale = 1, fraction = 1) {
    const { write, bytes } = writer(home);
    write('.config/Claude/claude_desktop_config.json', '{}\n');
    // 1,000 runs, each with an audit log of ~50 KB (its turns are on disk, never read).
    const runs = part(1000, fraction);
    for (let n = 0; n < runs; n += 1) {
      const folder = `.config/Claude/local-agent-mode-sessions/${uuid('6c1f2a9e', n % 4)}/${uuid('b7e6d5c4', n % 5)}`;
      const id = `local_${uuid('c0c0a000', n)}`;
      write(
        `${folder}/${id}.json`,
        JSON.stringify(
          {
            sessionId: id,
            cwd: `/home/dev/cowork/task-${n}`,
            userSelectedFolders: [`/home/dev/Documents/f${n % 30}`, `/home/dev/cowork/task-${n}/`],
            createdAt: epochMs(n),
            lastActivityAt: epochMs(n) + 3_600_000,
            model: 'claude-opus-4-1',
            permissionMode: 'acceptEdits',
            title: `Run ${n}: ${words(5, n)}`,
            initialMessage: words(30, n),
            mcqAnswers: { q1: words(3, n) },
            enabledMcpTools: { 's1:read': true, 's1:write': n % 2 === 0, 's2:fetch': true },
          },
          null,
          2,
        ),
      );
      const audit = [
        JSON.stringify({
          type: 'system',
          subtype: 'init',
          tools: Array.from({ length: 12 }, (_, i) => `t${i}`),
          mcp_servers: [{ name: 's1' }, { name: 's2' }],
          skills: ['pdf', 'xlsx'],
          plugins: [],
          slash_commands: ['/compact', '/review'],
          claude_code_version: '2.0.14',
        }),
      ];
      for (let turn = 0; turn < 40; turn += 1) {
        audit.push(JSON.stringify({ type: 'user', message: { content: words(40, n + turn) } }));
        audit.push(JSON.stringify({ type: 'assistant', message: { content: words(160, n * 3 + turn) } }));
      }
      audit.push(
        JSON.stringify({
          type: 'result',
          subtype: 'success',
          total_cost_usd: 0.4271,
          num_turns: 40,
          is_error: false,
          duration_ms: 183000 + n,
          stop_reason: 'end_turn',
          result: words(50, n),
        }),
      );
      write(`${folder}/${id}/audit.jsonl`, audit.join('\n') + '\n');
    }
    return `${thousands(runs)} runs with audit logs, ${(bytes() / 1e6).toFixed(1)} MB`;
  },
};
