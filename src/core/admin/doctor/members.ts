/**
 * Doctor's member checks: the registry (readable, its mode, revoked members), quarantined
 * members without grants, and whether HTTP callers can authenticate.
 */
import fs from 'node:fs';
import type { Env } from '../../store/config.js';
import { FederationRegistry } from '../../trust/registry.js';
import { check, plural, type CheckResult } from './check.js';

export function registryChecks(file: string, env: Env): CheckResult[] {
  const registry = new FederationRegistry(file, { warn: () => {} });
  const problem = registry.problem();
  const legacy = typeof env.BOURDON_PEER_TOKEN_SERVER === 'string' && env.BOURDON_PEER_TOKEN_SERVER.trim() !== '';
  if (problem) {
    return [
      check('registry', 'registry', 'fail', `${file} is unreadable: ${problem}`, [
        'no member can authenticate until it is fixed or moved',
      ]),
      check(
        'auth',
        'HTTP auth',
        legacy ? 'warn' : 'fail',
        legacy
          ? 'only the BOURDON_PEER_TOKEN_SERVER token authenticates (members cannot)'
          : 'no caller can authenticate over HTTP',
      ),
    ];
  }
  const members = registry.list();
  const out: CheckResult[] = [];
  const active = members.filter((member) => !member.revoked);
  const revoked = members.filter((member) => member.revoked);
  const idle = active.filter((member) => member.tier === 'quarantined' && member.grants.length === 0);
  if (!fs.existsSync(file)) {
    out.push(
      check('registry', 'registry', 'info', `no members yet (${file}); \`bourdon agent add <id>\` registers one`),
    );
  } else {
    const trusted = active.filter((member) => member.tier === 'trusted').length;
    const summary = `${plural(active.length, 'active member')} (${trusted} trusted, ${active.length - trusted} quarantined)${revoked.length ? `, ${revoked.length} revoked` : ''}`;
    const details = revoked.map(
      (member) =>
        `${member.agent_id}: revoked${member.revoked_at ? ` ${member.revoked_at}` : ''}; its token no longer authenticates`,
    );
    let mode = 0;
    try {
      mode = fs.statSync(file).mode & 0o777;
    } catch {
      // gone meanwhile
    }
    if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
      out.push(
        check(
          'registry',
          'registry',
          'warn',
          `${summary}; the file is readable by other users (mode ${mode.toString(8)}): \`chmod 600 ${file}\``,
          details,
        ),
      );
    } else {
      out.push(check('registry', 'registry', 'ok', summary, details));
    }
  }
  if (idle.length) {
    out.push(
      check(
        'grants',
        'grants',
        'warn',
        `${plural(idle.length, 'quarantined member')} without grants can read nothing`,
        idle.map(
          (member) =>
            `${member.agent_id}: \`bourdon grant ${member.agent_id} <agent>\`, or \`bourdon agent set-tier ${member.agent_id} trusted\``,
        ),
      ),
    );
  }
  if (active.length || legacy) {
    const how = [
      active.length ? plural(active.length, 'member token') : '',
      legacy ? 'the BOURDON_PEER_TOKEN_SERVER token (operator)' : '',
    ]
      .filter(Boolean)
      .join(' and ');
    out.push(
      check(
        'auth',
        'HTTP auth',
        'ok',
        `\`serve --transport http\` authenticates ${how}; a non-loopback bind (--host) may start`,
      ),
    );
  } else {
    out.push(
      check(
        'auth',
        'HTTP auth',
        'info',
        'not configured: stdio works; over HTTP every request gets 503 and a non-loopback bind refuses to start',
        ['`bourdon agent add <id>` registers a member with a token'],
      ),
    );
  }
  return out;
}
