/**
 * `bourdon help` (and `bourdon --help`): the root lists commands by task rather than by name,
 * and the topics `agent`, `staging`, `peers`, `sync` and `note` open with a short guide. Command help
 * is oclif's own (summary, usage, flags, description), its examples laid out to fit the
 * terminal (example-wrap.ts) as oclif leaves them whole. Registered as the oclif `helpClass`;
 * it reads only the command manifest, so it stays as fast as the default help.
 */
import { format } from 'node:util';
import { CommandHelp, Help, type Command, type Interfaces } from '@oclif/core';
import { writePaged } from './pager.js';
import { wrapExample } from './example-wrap.js';
import { setupWidth, wrap } from './output.js';

interface Group {
  title: string;
  ids: string[];
  /** Commands that join the group by their id, after `ids` (a participant's `<topic>:export`). */
  joins?: (id: string) => boolean;
}

/** Task groups, in the order a newcomer meets them. Unlisted commands land under "Other". */
const GROUPS: Group[] = [
  {
    title: 'Ask the library',
    ids: [
      'search',
      'agents',
      'find',
      'query',
      'recent',
      'summary',
      'workstreams',
      'list-notes',
      'note:show',
      'recognize',
      'deeper-context',
      'compile-turn',
    ],
  },
  {
    title: 'Fill the library',
    ids: ['export-all', 'watch', 'hook'],
    // One per registered participant, made from the registry (src/cli/export-command.ts).
    joins: (id) => id.endsWith(':export'),
  },
  {
    title: 'Write and recover',
    ids: ['commit', 'note:add', 'history', 'diff', 'rollback', 'staging:list', 'staging:promote', 'staging:reject'],
  },
  {
    title: 'Members and trust',
    ids: ['agent:add', 'agent:list', 'agent:rotate', 'agent:set-tier', 'grant', 'ungrant', 'revoke', 'audit'],
  },
  { title: 'Peers', ids: ['peers:add', 'peers:list', 'peers:remove', 'peers:check'] },
  { title: 'Share through git', ids: ['sync:init', 'sync:push', 'sync:pull', 'sync:status', 'sync:trust'] },
  {
    title: 'Serve and set up',
    ids: ['init', 'serve', 'ui', 'mcp-config', 'doctor', 'demo', 'help', 'completion', 'version'],
  },
];

/** Whether command `id` is listed in `group`. */
function inGroup(group: Group, id: string): boolean {
  return group.ids.includes(id) || (group.joins?.(id) ?? false);
}

/** The title of the group command `id` is listed under ("Other" when none lists it). */
export function groupTitle(id: string): string {
  return GROUPS.find((group) => inGroup(group, id))?.title ?? 'Other';
}

/** The longer guide shown by `bourdon help <topic>`. */
const TOPIC_GUIDES: Record<string, { summary: string; guide: string; examples: string[] }> = {
  agent: {
    summary: 'Members: who may call the server over HTTP, with which tier and grants.',
    guide: `Over stdio the caller is always the operator. Over HTTP every request carries a bearer token, and the token says who calls: a member registered here.

A member is quarantined unless you say otherwise: it reads only the namespaces (agent ids) granted to it, may call the read tools plus commit_to_federation, and its writes wait in staging for you to promote. A trusted member may call every tool and read everything, except private rows when it calls from another machine.

The token is printed once, by \`agent add\` or \`agent rotate\`; only its SHA-256 is stored. Revocation, rotation, tier and grant changes apply on the next request, without a restart. Every call is recorded in the audit log (\`bourdon audit\`). More: docs/trust.md.`,
    examples: [
      'bourdon agent add openclaw --grant cursor          # quarantined, reads cursor; prints its token',
      'bourdon agent add laptop --tier trusted --json     # {"agent_id","tier","grants","token"}',
      'bourdon grant openclaw codex                       # and `ungrant` to take it back',
      'bourdon agent rotate openclaw                      # new token; the old one stops at once',
      'bourdon revoke openclaw',
      'bourdon audit --denials --agent openclaw',
    ],
  },
  staging: {
    summary: 'Quarantined writes awaiting review: list, promote, reject.',
    guide: `When a quarantined member commits to its own namespace, the write does not touch the live library: it lands in <library>/staging/<member>/<agent>.l5.yaml, merged with that member's earlier staged writes, and no query sees it.

You review it: \`promote\` merges it into agents/<agent>.l5.yaml through the normal commit path (a new version, op promote, so it can be explained with \`bourdon diff\` and undone with \`bourdon rollback\`); \`reject\` deletes it unread. \`bourdon doctor\` fails when a staged write waits more than 7 days.`,
    examples: [
      'bourdon staging list',
      'bourdon staging promote openclaw',
      'bourdon staging reject openclaw',
      'bourdon history openclaw     # the promotion is a version',
    ],
  },
  peers: {
    summary: "Other machines' Bourdon servers this one federates with.",
    guide: `A server starts with no peers. \`bourdon serve --federate\` reads ~/.bourdon/peers.yaml (or --peers-config <file>, or --peer <url>) and then answers every trusted query from this library and each peer's, tagging peer rows peer:<name>:<agent>. A missing or invalid peers file refuses to start.

Peer URLs must be https unless the host is loopback, with no credentials, query or fragment. The token is never stored in the file: each peer names a BOURDON_PEER_* variable that holds it (a member token the other machine issued with \`bourdon agent add\`). A peer call has a 5 s budget and never fails the query: a dead peer contributes nothing and is reported. More: docs/federation.md and docs/security.md.`,
    examples: [
      'bourdon peers add desk https://desk.tailnet.example:7500 --token-env BOURDON_PEER_DESK',
      'export BOURDON_PEER_DESK=bdn_…   # the token the desk issued',
      'bourdon peers check               # reachable? latency, protocol, agent count',
      'bourdon serve --transport http --federate',
    ],
  },
  sync: {
    summary: 'Share the library with your team through a git remote.',
    guide: `\`sync init <remote>\` records a git remote (a bare repository path, ssh, or https with your credential helper). \`sync push\` publishes this machine's manifests into machines/<machine>/ on the remote, filtered to --access-level (public by default) and redacted; \`sync pull\` brings the other machines' into <library>/pulled/, served as sync:<machine>:<agent> and never above the level they were published at. Your own manifests are never changed by a pull. Peers are live and need both machines online; sync is asynchronous. More: docs/sync.md.`,
    examples: [
      'bourdon sync init git@github.com:acme/team-library.git',
      'bourdon sync push                     # public rows only',
      'bourdon sync push --access-level team',
      'bourdon sync pull && bourdon agents   # sync:<machine>:<agent> rows',
      'bourdon sync status',
    ],
  },
  note: {
    summary: "Notes in an agent's manifest.",
    guide: `Notes are dated free text in an agent's manifest (title, tags, projects, visibility), beside its entities and sessions. \`note add\` commits one through the same path as commit_to_federation, so it becomes a version; \`bourdon list-notes\` reads them across agents, each with its id (<agent>:<n>, its place in that manifest), and \`note show <id>\` prints one whole.`,
    examples: [
      'bourdon note add codex "Release branch is frozen until Friday" --tag release',
      'bourdon list-notes --tag release',
      'bourdon note show codex:1',
    ],
  },
};

/** What a bare `bourdon` lists: the two that set a library up and fill it, then the commands a daily user runs most. */
const MOST_USED = ['init', 'export-all', 'find', 'query', 'recent', 'commit', 'doctor'];

const OVERVIEW_FOOTER = `Run \`bourdon help\` for every command and guide, \`bourdon <command> --help\` for one command's flags and examples. New here? \`bourdon demo\` shows federation on a sample library.`;

/**
 * The flags many commands share, each said once in the footer with the commands that do not
 * take it: read from the commands' own flags, so the footer cannot promise a flag a command
 * refuses (`agent list --library`).
 */
const SHARED_FLAGS: [flag: string, shown: string][] = [
  ['json', '--json (the exact payload on stdout)'],
  ['library', '--library <dir> (default $BOURDON_LIBRARY, else ~/agent-library)'],
];

const FOOTER = `Exit codes: 0 ok, 1 error, 2 usage, 3 access denied. Colour only on a terminal; NO_COLOR turns it off.
Long output on a terminal goes through $BOURDON_PAGER, else $PAGER, else less; --no-pager or PAGER=cat prints it directly.
Run \`bourdon <command> --help\` for its flags and examples, \`bourdon help <topic>\` for a guide.`;

/** The width help lays examples out at: the terminal's, less the section's indentation. */
function exampleLines(examples: readonly string[], width: number): string {
  return examples.flatMap((example) => wrapExample(example, width)).join('\n');
}

/** A command's help, its examples (every one a command line here) each fitted to the width. */
class BourdonCommandHelp extends CommandHelp {
  protected override examples(examples: Command.Example[] | string | undefined): string | undefined {
    if (!examples || examples.length === 0) return;
    const width = this.opts.maxWidth - this.indentSpacing;
    return (Array.isArray(examples) ? examples : [examples])
      .map((example) => {
        if (typeof example !== 'string') {
          const command = exampleLines([this.commandLine(example.command)], width);
          return `${this.wrap(example.description, this.indentSpacing)}\n\n${command}`;
        }
        return exampleLines(
          example
            .split('\n')
            .filter(Boolean)
            .map((line) => this.commandLine(line)),
          width,
        );
      })
      .join('\n\n');
  }

  /**
   * The usage lines (the command's own, else oclif's generated one), each wrapped at the width
   * as oclif wraps it. oclif measures a line with `<%= command.id %>` in place of the id, so an
   * id longer than that placeholder (`claude-code-automations export`) ran past the width, and
   * a shorter one broke early.
   */
  protected override usage(): string {
    const id = this.config.topicSeparator === ':' ? this.command.id : this.command.id.replaceAll(':', ' ');
    const { usage } = this.command;
    const usages = usage === undefined ? [this.defaultUsage()] : typeof usage === 'string' ? [usage] : usage;
    const width = this.opts.maxWidth - this.indentSpacing;
    return usages
      .map((text) => {
        const line = `$ ${this.config.bin} ${id} ${text.replace('<%= command.id %>', '').trim()}`.trim();
        if (line.length <= width) return line;
        const split = line.slice(0, width).lastIndexOf(' ');
        return `${line.slice(0, split)}\n${this.indent(this.wrap(line.slice(split), this.indentSpacing * 2))}`;
      })
      .join('\n');
  }

  /** The example with `<%= config.bin %>` filled in and any `$ ` it was written with taken off. */
  private commandLine(example: string): string {
    return this.render(example).replace(/^\$ /, '');
  }
}

export default class BourdonHelp extends Help {
  protected override CommandHelpClass = BourdonCommandHelp;

  constructor(config: Interfaces.Config, options: Partial<Interfaces.HelpOptions> = {}) {
    // COLUMNS, when set, is the width help fits, as for every other output: oclif reads only
    // the terminal's (80 when piped).
    const columns = Number(process.env.COLUMNS);
    super(config, Number.isInteger(columns) && columns > 0 ? { maxWidth: columns, ...options } : options);
  }

  /** What this help prints, held until it is whole, then paged (pager.ts) when taller than the terminal. */
  private held: string[] | null = null;

  protected override log(...args: string[]): void {
    if (this.held && !this.opts.sendToStderr) this.held.push(format(...args));
    else super.log(...args);
  }

  public override async showHelp(argv: string[]): Promise<void> {
    this.held = [];
    try {
      await super.showHelp(argv);
    } finally {
      const text = this.held.length ? `${this.held.join('\n')}\n` : '';
      this.held = null;
      if (text) writePaged(text);
    }
  }

  private displayId(id: string): string {
    return this.config.topicSeparator === ':' ? id : id.replaceAll(':', this.config.topicSeparator);
  }

  /** Every group's summaries start at the same column. */
  private idWidth = 0;

  private rows(commands: Command.Loadable[]): string {
    return this.renderList(
      commands.map((command) => [this.displayId(command.id).padEnd(this.idWidth), this.summary(command)]),
      { indentation: 2, spacer: '\n', stripAnsi: this.opts.stripAnsi },
    );
  }

  protected override async showRootHelp(): Promise<void> {
    const commands = this.sortedCommands.filter((command) => command.id);
    // A bare `bourdon` gets a short overview that fits one screen; `bourdon help` lists everything.
    if (process.argv.filter((arg) => arg !== '--no-pager').length <= 2) return this.showOverview(commands);
    this.log(wrap(this.formatRoot(), { width: this.opts.maxWidth, continuation: 0 }));
    this.log('');
    const byId = new Map(commands.map((command) => [command.id, command]));
    const listed = new Set<string>();
    this.idWidth = Math.max(
      0,
      ...commands.map((command) => this.displayId(command.id).length),
      ...Object.keys(TOPIC_GUIDES).map((name) => `help ${name}`.length),
    );
    for (const group of GROUPS) {
      const members = [
        ...group.ids.map((id) => byId.get(id)),
        ...commands.filter((command) => !group.ids.includes(command.id) && inGroup(group, command.id)),
      ].filter((command): command is Command.Loadable => command !== undefined);
      if (members.length === 0) continue;
      for (const command of members) listed.add(command.id);
      this.log(this.section(group.title.toUpperCase(), this.rows(members)));
      this.log('');
    }
    const other = commands.filter((command) => !listed.has(command.id));
    if (other.length) {
      this.log(this.section('OTHER', this.rows(other)));
      this.log('');
    }
    const topics = Object.entries(TOPIC_GUIDES)
      .filter(([name]) => this.config.findTopic(name))
      .map(([name, topic]) => [`help ${name}`.padEnd(this.idWidth), topic.summary]);
    if (topics.length) {
      this.log(
        this.section(
          'GUIDES',
          this.renderList(topics, { indentation: 2, spacer: '\n', stripAnsi: this.opts.stripAnsi }),
        ),
      );
      this.log('');
    }
    this.log(this.wrap(`${this.sharedFlags(commands)}\n${FOOTER}`));
  }

  /**
   * "Every command takes --json …, every command but agent …, audit, … takes --library …":
   * a topic whose commands all lack the flag is named once (`agent …`).
   */
  private sharedFlags(commands: Command.Loadable[]): string {
    const visible = commands.filter((command) => !command.hidden && command.id !== 'help');
    const lines = SHARED_FLAGS.map(([flag, shown]) => {
      const lacking = visible.filter((command) => !(flag in command.flags)).map((command) => command.id);
      const names = new Set(
        lacking.map((id) => {
          const topic = id.includes(':') ? id.slice(0, id.indexOf(':')) : null;
          const whole =
            topic !== null &&
            visible.every((command) => !command.id.startsWith(`${topic}:`) || lacking.includes(command.id));
          return whole ? `${topic} …` : this.displayId(id);
        }),
      );
      return names.size
        ? `Every command but ${[...names].sort().join(', ')} takes ${shown}.`
        : `Every command takes ${shown}.`;
    });
    return lines.join('\n');
  }

  private showOverview(commands: Command.Loadable[]): void {
    const byId = new Map(commands.map((command) => [command.id, command]));
    const used = MOST_USED.map((id) => byId.get(id)).filter((c): c is Command.Loadable => c !== undefined);
    this.idWidth = Math.max(0, ...used.map((command) => this.displayId(command.id).length));
    setupWidth(false);
    this.log(wrap(this.formatRoot()));
    this.log('');
    this.log(this.section('MOST USED', this.rows(used)));
    this.log('');
    this.log(wrap(OVERVIEW_FOOTER, { continuation: 0 }));
  }

  protected override formatTopic(topic: Interfaces.Topic): string {
    const guide = TOPIC_GUIDES[topic.name];
    // oclif leaves a topic's description line whole.
    if (!guide) return wrap(super.formatTopic(topic), { width: this.opts.maxWidth, continuation: 0 });
    const usage = `$ ${this.config.bin} ${this.displayId(`${topic.name}:COMMAND`)}`;
    return (
      [
        guide.summary,
        this.section('USAGE', usage),
        this.section('GUIDE', this.wrap(guide.guide)),
        this.section('EXAMPLES', exampleLines(guide.examples, this.opts.maxWidth - this.indentSpacing)),
      ].join('\n\n') + '\n'
    );
  }
}
