/**
 * The shapes of secret values, as data: what `findSecrets` (redaction.ts) looks for in any text
 * that leaves a source. Each rule marks the VALUE (its `value` group, else the whole match), so
 * prose around it, and prose that only names a credential, is kept.
 *
 * The rule set covers every rule of gitleaks' default rule set that reads text (its
 * `pkcs12-file` rule looks at file names only), written as our own expressions of the public
 * formats it documents: provider tokens that say what they are (secret-token-rules.ts), values a
 * provider's keyword beside them makes secret, with the keyword context gitleaks requires
 * (secret-keyword-rules.ts), and the shapes below; the assignment rule follows its
 * generic-api-key shape (a credential-like name, an assignment operator, a value), with value
 * classes instead of an entropy threshold. Why not a dependency: docs/security.md, "Secret values".
 *
 * Every pattern is linear on any input: a failing attempt is bounded (fixed or `{m,n}` parts
 * before any open-ended one), and an open-ended run only follows a prefix that already matched.
 * `hints` (lower-case) gate a rule cheaply: it runs only when the text contains one of them.
 */
import { KEYWORD_RULES } from './secret-keyword-rules.js';
import type { SecretRule } from './secret-rule.js';
import { TOKEN_RULES } from './secret-token-rules.js';

export type { SecretRule } from './secret-rule.js';

/** Shapes recognised by their context: key blocks, webhook URLs, headers, command lines, files. */
const STRUCTURAL: readonly SecretRule[] = [
  // PEM and PGP private key blocks, to their END line or, cut short, to the end of the text.
  {
    id: 'private-key-block',
    pattern:
      /-----BEGIN[ A-Z0-9_-]{0,60}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9_-]{0,60}PRIVATE KEY(?: BLOCK)?-----|$)/dg,
    hints: ['private key'],
  },
  // Webhook URLs whose path is the credential.
  {
    id: 'slack-webhook',
    pattern: /hooks\.slack\.com\/(?:services|workflows|triggers)\/(?<value>[A-Za-z0-9+/_-]{16,})/dg,
    hints: ['hooks.slack.com'],
  },
  {
    id: 'discord-webhook',
    pattern: /discord(?:app)?\.com\/api\/webhooks\/(?<value>[0-9]+\/[A-Za-z0-9_-]{20,})/dg,
    hints: ['/api/webhooks/'],
  },
  {
    id: 'microsoft-teams-webhook',
    pattern: /\.webhook\.office\.com\/webhookb2\/(?<value>[A-Za-z0-9@/_-]{40,})/dg,
    hints: ['webhookb2'],
  },
  // A password in a URL's user part: scheme://user:PASSWORD@host (postgres, mongodb+srv, redis, amqp, https…).
  {
    id: 'url-password',
    pattern: /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}:\/\/[^\s:/?#@'"]{0,200}:(?<value>[^\s/?#@'"]{1,500})@/dg,
    hints: ['://'],
  },
  // An Authorization header's credential, and a bearer credential anywhere.
  {
    id: 'authorization-header',
    pattern:
      /\b(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:bearer|basic|token|api-token|digest|apikey)[ \t]+(?<value>[A-Za-z0-9._~+/=-]{8,})/dgi,
    hints: ['authorization'],
  },
  // A header on curl's command line: -H "X-API-Key: …", -H 'Api-Token: …', -H "Authorization: …" (no scheme).
  {
    id: 'curl-auth-header',
    pattern:
      /(?<![A-Za-z0-9_-])(?:-H|--header)(?:=|[ \t]{0,5})["']?(?:(?:x-(?:[a-z]{1,30}-)?)?(?:api-?)?(?:key|token)|authorization)[ \t]*:[ \t]{0,5}(?<value>(?!(?:bearer|basic|token|api-token|digest|apikey)\b)[\w=~@.+/-]{8,})/dgi,
    hints: ['-h', '--header'],
  },
  // A NuGet.config password: <add key="ClearTextPassword" value="…" />.
  {
    id: 'nuget-config-password',
    pattern: /<add key=["'](?:ClearText)?Password["']\s{0,20}value=["'](?<value>[^"'\n]{1,500})["']/dgi,
    hints: ['<add key='],
  },
  { id: 'bearer-token', pattern: /\bbearer[ \t]+(?<value>[A-Za-z0-9._~+/-]{16,}=*)/dgi, hints: ['bearer'] },
  // .pgpass lines: host:port:database:user:PASSWORD (the host has a letter, a dot or `*`).
  {
    id: 'pgpass-line',
    pattern:
      /(?<![^\s])(?=[^:\s]{0,253}[A-Za-z.*])[A-Za-z0-9.*_-]{1,253}:(?:[0-9]{1,5}|\*):[^:\s]{1,100}:[^:\s]{1,100}:(?<value>[^\s]+)/dg,
    hints: [':'],
  },
  // curl / wget credentials on the command line: -u user:PASSWORD, --user=user:PASSWORD.
  {
    id: 'command-line-user',
    pattern:
      /(?<![A-Za-z0-9_-])(?:-u|--user|--proxy-user|--http-user)(?:[ \t]+|=)?["']?[^\s:"'@]{1,100}:(?<value>[^\s"']+)/dg,
    hints: ['-u', '--user', '--proxy-user', '--http-user'],
  },
  // mysql's password glued to its flag: mysql -u root -pPASSWORD.
  {
    id: 'mysql-password-flag',
    pattern: /\bmysql(?:dump|admin|sh|import)?\b[^\n]{0,300}?[ \t]-p(?<value>[^\s"'-][^\s"']*)/dg,
    hints: ['mysql'],
  },
  // A passphrase runs to the end of its line: it may hold spaces.
  {
    id: 'passphrase',
    pattern: /passphrase["']?[ \t]*[:=][ \t]*(?<value>"[^"\n]{1,500}"|'[^'\n]{1,500}'|[^\s"'$<{][^\n]*)/dgi,
    hints: ['passphrase'],
  },
];

/**
 * `name = value`, `name: value`, `"name": "value"`, `name => value`: the candidates the
 * assignment rule classifies (redaction.ts, `secretAssignment`). The name starts a token; the
 * value is a quoted string or a run without spaces, quotes or separators.
 */
export const ASSIGNMENT =
  /(?<![A-Za-z0-9_.-])(?<name>[A-Za-z0-9_.-]{1,60})["']?[ \t]{0,3}(?<sep>=>|:=|=|:)[ \t]{0,3}(?:"(?<dq>[^"\n]{1,500})"|'(?<sq>[^'\n]{1,500})'|(?<bare>[^\s"'`,;&)\]}<>]+))/dg;

/** A Kubernetes Secret's `data:` entries (a manifest that says `kind: Secret`): each value. */
const KUBERNETES_SECRET = /\bkind:[ \t]*["']?secret\b/i;
const KUBERNETES_DATA = /\bdata:/gi;
const KUBERNETES_ENTRY =
  /\s+[\w.-]{1,100}:[ \t]*(?:[|>][-+]?\s+)?["']?(?<value>[A-Za-z0-9+/]{10,}={0,3})["']?(?![^\s,}])/dy;

/** The spans of a Kubernetes Secret's data values in `text` (none unless it says `kind: Secret`). */
export function kubernetesSecretValues(text: string): [number, number][] {
  if (!KUBERNETES_SECRET.test(text)) return [];
  const spans: [number, number][] = [];
  const data = new RegExp(KUBERNETES_DATA.source, KUBERNETES_DATA.flags);
  const entry = new RegExp(KUBERNETES_ENTRY.source, KUBERNETES_ENTRY.flags);
  let scanned = 0;
  for (let match = data.exec(text); match; match = data.exec(text)) {
    if (match.index < scanned) continue;
    scanned = match.index + match[0].length;
    entry.lastIndex = scanned;
    for (let item = entry.exec(text); item; item = entry.exec(text)) {
      const span = item.indices!.groups!.value!;
      spans.push([span[0], span[1]]);
      scanned = entry.lastIndex;
    }
  }
  return spans;
}

export const SECRET_RULES: readonly SecretRule[] = [...TOKEN_RULES, ...KEYWORD_RULES, ...STRUCTURAL];

/** A trie of every rule's hints: one pass over a text finds which rules may match it. */
interface HintNode {
  readonly next: Map<string, HintNode>;
  rules: SecretRule[] | null;
}

const HINTS: HintNode = { next: new Map(), rules: null };
for (const rule of SECRET_RULES) {
  for (const hint of rule.hints) {
    let node = HINTS;
    for (const char of hint) {
      let child = node.next.get(char);
      if (!child) node.next.set(char, (child = { next: new Map(), rules: null }));
      node = child;
    }
    (node.rules ??= []).push(rule);
  }
}

/**
 * The rules whose hints `lower` (a lower-cased text) holds, in the rule set's order. Linear:
 * each position walks the trie no deeper than the longest hint.
 */
export function rulesFor(lower: string): SecretRule[] {
  const found = new Set<SecretRule>();
  for (let at = 0; at < lower.length; at += 1) {
    let node: HintNode | undefined = HINTS;
    for (let i = at; i < lower.length; i += 1) {
      node = node.next.get(lower[i]!);
      if (!node) break;
      if (node.rules) for (const rule of node.rules) found.add(rule);
    }
  }
  return found.size ? SECRET_RULES.filter((rule) => found.has(rule)) : [];
}
