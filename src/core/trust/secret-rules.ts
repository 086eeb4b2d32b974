/**
 * The shapes of secret values, as data: what `findSecrets` (redaction.ts) looks for in any text
 * that leaves a source. Each rule marks the VALUE (its `value` group, else the whole match), so
 * prose around it, and prose that only names a credential, is kept.
 *
 * Provider shapes follow the public formats gitleaks' rule set documents (token prefixes and
 * lengths); the assignment rule follows its generic-api-key shape (a credential-like name, an
 * assignment operator, a value), with value classes instead of an entropy threshold. Why not a
 * dependency: docs/security.md, "Secret values".
 *
 * Every pattern is linear on any input: a failing attempt is bounded (fixed or `{m,n}` parts
 * before any open-ended one), and an open-ended run only follows a prefix that already matched.
 * `hints` (lower-case) gate a rule cheaply: it runs only when the text contains one of them.
 */

export interface SecretRule {
  readonly id: string;
  /** Global, with indices (`gd`); a `value` group marks the secret, else the whole match does. */
  readonly pattern: RegExp;
  readonly hints: readonly string[];
}

/** A token's characters after its prefix. */
const TOKEN = '[A-Za-z0-9_-]';
/** Not preceded by a token character: the prefix starts a token. */
const START = '(?<![A-Za-z0-9_-])';

function prefixed(id: string, source: string, hints: readonly string[], flags = 'gd'): SecretRule {
  return { id, pattern: new RegExp(`${START}${source}`, flags), hints };
}

/** Shapes recognised by their own look, wherever they appear. */
const TOKEN_SHAPES: readonly SecretRule[] = [
  // PEM and PGP private key blocks, to their END line or, cut short, to the end of the text.
  {
    id: 'private-key-block',
    pattern:
      /-----BEGIN[ A-Z0-9_-]{0,60}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9_-]{0,60}PRIVATE KEY(?: BLOCK)?-----|$)/dg,
    hints: ['private key'],
  },
  // OpenAI / Anthropic keys (sk-…, sk-proj-…, sk-ant-…): a digit among the first 40 characters.
  prefixed('openai-anthropic-key', `sk-(?=${TOKEN}{0,40}[0-9])${TOKEN}{20,}`, ['sk-']),
  // Stripe secret and restricted keys.
  prefixed('stripe-key', '(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,}', ['sk_', 'rk_']),
  prefixed('github-token', 'gh[pousr]_[A-Za-z0-9]{20,}', ['gh']),
  prefixed('github-fine-grained-pat', 'github_pat_[A-Za-z0-9_]{20,}', ['github_pat_']),
  prefixed('gitlab-token', 'gl(?:pat|dt|ptt|rt|cbt|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}', ['gl']),
  prefixed('slack-token', 'xox[abposre]-[A-Za-z0-9-]{10,}', ['xox']),
  prefixed('aws-access-key-id', '(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])', [
    'a3t',
    'akia',
    'asia',
    'abia',
    'acca',
  ]),
  prefixed('jwt', `eyJ${TOKEN}{10,}\\.eyJ${TOKEN}*(?:\\.${TOKEN}*)?`, ['eyj']),
  prefixed('npm-token', 'npm_[A-Za-z0-9]{30,}', ['npm_']),
  prefixed('google-api-key', `AIza${TOKEN}{30,}`, ['aiza']),
  prefixed('google-oauth-client-secret', `GOCSPX-${TOKEN}{20,}`, ['gocspx-']),
  prefixed('google-oauth-access-token', `ya29\\.${TOKEN}{20,}`, ['ya29.']),
  prefixed('huggingface-token', 'hf_[A-Za-z0-9]{20,}', ['hf_']),
  prefixed('sendgrid-key', `SG\\.${TOKEN}{16,32}\\.${TOKEN}{16,}`, ['sg.']),
  prefixed('digitalocean-token', 'do[opr]_v1_[A-Za-z0-9]{32,}', ['_v1_']),
  prefixed('shopify-token', 'shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}', ['shp']),
  prefixed('pypi-token', `pypi-AgEIcHlwaS5vcmc${TOKEN}{20,}`, ['pypi-']),
  prefixed('databricks-token', 'dapi[a-f0-9]{32}(?:-[0-9])?', ['dapi']),
  prefixed('vault-token', `hv[sb]\\.${TOKEN}{24,}`, ['hvs.', 'hvb.']),
  prefixed('linear-key', 'lin_api_[A-Za-z0-9]{40}', ['lin_api_']),
  prefixed('postman-key', 'PMAK-[a-f0-9]{24}-[a-f0-9]{34}', ['pmak-']),
  prefixed('sentry-token', 'sntry[us]_[A-Za-z0-9_=+/.-]{30,}', ['sntry']),
  prefixed('twilio-key', 'SK[0-9a-f]{32}(?![A-Za-z0-9])', ['sk']),
  prefixed('doppler-token', 'dp\\.(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9]{30,}', ['dp.']),
  prefixed('grafana-token', '(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})', ['glsa_', 'glc_']),
  prefixed('planetscale-token', 'pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,}', ['pscale_']),
  prefixed('age-secret-key', 'AGE-SECRET-KEY-1[0-9A-Z]{58}', ['age-secret-key-']),
  prefixed('notion-token', '(?:ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})', ['ntn_', 'secret_']),
  prefixed('atlassian-token', 'ATATT3[A-Za-z0-9_=-]{100,}', ['atatt3']),
  prefixed('heroku-token', `HRKU-${TOKEN}{30,}`, ['hrku-']),
  prefixed('mailgun-key', 'key-[a-f0-9]{32}(?![A-Za-z0-9])', ['key-']),
  prefixed('onepassword-token', 'ops_eyJ[A-Za-z0-9+/=]{100,}', ['ops_']),
  // A Telegram bot token: the bot id, a colon, 35 characters starting AA.
  { id: 'telegram-bot-token', pattern: /(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}/dg, hints: [':aa'] },
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
      /\b(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:bearer|basic|token|digest|apikey)[ \t]+(?<value>[A-Za-z0-9._~+/=-]{8,})/dgi,
    hints: ['authorization'],
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

export const SECRET_RULES: readonly SecretRule[] = TOKEN_SHAPES;
