import { Flags } from '@oclif/core';
import { ExportCommand, exportFlags, registeredParticipant } from '../../cli/export-command.js';
import { exportEnvironment } from '../../participants/runner.js';

export default class OpenclawExport extends ExportCommand {
  static override summary = "Stage an OpenClaw instance's memories and sessions for review.";
  static override description = `Reads a running OpenClaw instance over its HTTP API (--url, else $OPENCLAW_URL, else http://127.0.0.1:8080): /api/status first — an instance older than 2026.1.29 or without authentication is refused (exit 1, nothing written) — then /api/sessions and /api/memories. The bearer token comes from $OPENCLAW_TOKEN only (never a flag: it would show in \`ps\` and your shell history) and is never printed, logged or written. Each request has a connect timeout (5 s) and a total one (30 s), answers over 32 MiB are refused, a redirect to another host is never followed and proxy variables are ignored. OpenClaw is a quarantined member: the manifest is staged at <library>/staging/openclaw/openclaw.l5.yaml, not written live — review it with \`bourdon staging list --diff\` and merge it with \`bourdon staging promote openclaw\`. With --out FILE it is written to FILE instead. docs/participants.md has the rules, docs/security.md the network ones.`;
  static override examples = [
    '<%= config.bin %> openclaw export',
    '<%= config.bin %> openclaw export --url http://127.0.0.1:8080 --since 2026-04-01 --dry-run --json',
    '<%= config.bin %> openclaw export --out openclaw.l5.yaml --print',
  ];
  static override flags = {
    ...exportFlags,
    out: Flags.string({
      description: "Write the manifest to this file instead of staging it in the library's staging/openclaw/.",
      helpValue: '<file>',
    }),
    url: Flags.string({
      description: 'The instance (default $OPENCLAW_URL, else http://127.0.0.1:8080).',
      helpValue: '<url>',
    }),
    'connect-timeout': Flags.string({
      description: 'Seconds to wait for each connection (default $BOURDON_OPENCLAW_CONNECT_TIMEOUT, else 5).',
      helpValue: '<seconds>',
    }),
    timeout: Flags.string({
      description: 'Seconds to wait for each whole answer (default $BOURDON_OPENCLAW_TIMEOUT, else 30).',
      helpValue: '<seconds>',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(OpenclawExport);
    // Each flag is its variable given on the command line: the same checks, one code path.
    const env = {
      ...process.env,
      ...(flags.url === undefined ? {} : { OPENCLAW_URL: flags.url }),
      ...(flags['connect-timeout'] === undefined ? {} : { BOURDON_OPENCLAW_CONNECT_TIMEOUT: flags['connect-timeout'] }),
      ...(flags.timeout === undefined ? {} : { BOURDON_OPENCLAW_TIMEOUT: flags.timeout }),
    };
    await this.exportWith(registeredParticipant('openclaw'), flags, exportEnvironment(env, { since: flags.since }));
  }
}
