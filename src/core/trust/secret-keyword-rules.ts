/**
 * Values that only a keyword beside them makes secret: gitleaks' provider rules whose value has
 * no telling prefix (a Datadog key is 40 letters and digits, a Twilio auth token 32 hex digits).
 * Each rule is a provider's keywords and the shapes its values take; a value counts when
 *
 * - it is assigned to a name holding the keyword, as gitleaks requires: the keyword, up to 20
 *   name characters, an operator (`=`, `:`, `=>`, `:=`, `?=`, `||`, `>`, `,`), up to 5 quotes or
 *   spaces, then the value, of exactly the rule's shape (`datadog_api_key: "…"`,
 *   `CLOUDFLARE_TOKEN=…`, `"twilio": {"auth_token": "…"}` is the assignment rule's); or
 * - it follows the keyword in prose, within 40 characters on the same line that name a
 *   credential (key, token, secret, password, auth, credential), and has 20+ characters with a
 *   letter and a digit ("the Twilio auth token 1f0c…", "our AWS secret key wJalr…").
 *
 * A value always ends where token characters end, so a longer word never matches in part.
 * Linear on any input: each attempt starts at a keyword and is bounded (fixed gaps, fixed or
 * `{m,n}` value lengths); hints gate each rule on its keywords.
 */
import type { SecretRule } from './secret-rule.js';

interface KeywordFamily {
  /** What the rule covers (gitleaks' ids where they apply). */
  readonly id: string;
  /** Lower-case keywords (regular-expression source; `hints` are their plain forms). */
  readonly keywords: readonly string[];
  /** The value's shapes (source, case-insensitive as gitleaks writes them). */
  readonly values: readonly string[];
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const A = '[a-z0-9]';
const H = '[a-f0-9]';
const T = '[a-z0-9_-]';
const B = '[a-z0-9=_-]';

const FAMILIES: readonly KeywordFamily[] = [
  { id: 'adafruit-api-key', keywords: ['adafruit'], values: [`${T}{32}`] },
  { id: 'adobe-client-id', keywords: ['adobe'], values: [`${H}{32}`] },
  { id: 'airtable-api-key', keywords: ['airtable'], values: [`${A}{17}`] },
  { id: 'algolia-api-key', keywords: ['algolia'], values: [`${A}{32}`] },
  { id: 'alibaba-secret-key', keywords: ['alibaba'], values: [`${A}{30}`] },
  { id: 'asana-client-id, asana-client-secret', keywords: ['asana'], values: ['[0-9]{16}', `${A}{32}`] },
  { id: 'atlassian-api-token', keywords: ['atlassian', 'confluence', 'jira'], values: [`${A}{24}`] },
  // The AWS secret access key: 40 base64 characters, in prose or assigned.
  { id: 'aws-secret-access-key', keywords: ['aws'], values: ['[a-z0-9/+=]{40}'] },
  { id: 'beamer-api-token', keywords: ['beamer'], values: [`b_${B}{44}`] },
  { id: 'bitbucket-client-id, -secret', keywords: ['bitbucket'], values: [`${A}{32}`, `${B}{64}`] },
  { id: 'bittrex-access-key, -secret-key', keywords: ['bittrex'], values: [`${A}{32}`] },
  { id: 'cisco-meraki-api-key', keywords: ['meraki'], values: [`${H}{40}`] },
  { id: 'cloudflare-api-key, -global-api-key', keywords: ['cloudflare'], values: [`${T}{40}`, `${H}{37}`] },
  { id: 'codecov-access-token', keywords: ['codecov'], values: [`${A}{32}`] },
  { id: 'cohere-api-token', keywords: ['cohere', 'co_api_key'], values: [`${A}{40}`] },
  { id: 'coinbase-access-token', keywords: ['coinbase'], values: [`${T}{64}`] },
  { id: 'confluent-access-token, -secret-key', keywords: ['confluent'], values: [`${A}{16}`, `${A}{64}`] },
  { id: 'contentful-delivery-api-token', keywords: ['contentful'], values: [`${B}{43}`] },
  // Datadog API keys (32 hex) and application keys (40).
  { id: 'datadog-access-token', keywords: ['datadog'], values: [`${A}{40}`, `${H}{32}`] },
  { id: 'defined-networking-api-token', keywords: ['dnkey'], values: [`dnkey-${B}{26}-${B}{52}`] },
  {
    id: 'discord-api-token, -client-id, -client-secret',
    keywords: ['discord'],
    values: [`${H}{64}`, '[0-9]{18}', `${B}{32}`],
  },
  { id: 'droneci-access-token', keywords: ['droneci'], values: [`${A}{32}`] },
  {
    id: 'dropbox-api-token, -long-lived-api-token',
    keywords: ['dropbox'],
    values: [`${A}{15}`, `${A}{11}AAAAAAAAAA[a-z0-9_=-]{43}`],
  },
  { id: 'etsy-access-token', keywords: ['etsy'], values: [`${A}{24}`] },
  { id: 'facebook-secret', keywords: ['facebook'], values: [`${H}{32}`] },
  { id: 'fastly-api-token', keywords: ['fastly'], values: [`${B}{32}`] },
  { id: 'finicity-api-token, -client-secret', keywords: ['finicity'], values: [`${H}{32}`, `${A}{20}`] },
  { id: 'finnhub-access-token', keywords: ['finnhub'], values: [`${A}{20}`] },
  { id: 'flickr-access-token', keywords: ['flickr'], values: [`${A}{32}`] },
  { id: 'freshbooks-access-token', keywords: ['freshbooks'], values: [`${A}{64}`] },
  { id: 'gitter-access-token', keywords: ['gitter'], values: [`${T}{40}`] },
  { id: 'gocardless-api-token', keywords: ['gocardless'], values: [`live_${B}{40}`] },
  { id: 'heroku-api-key', keywords: ['heroku'], values: [UUID] },
  { id: 'hubspot-api-key', keywords: ['hubspot'], values: [UUID] },
  { id: 'intercom-api-key', keywords: ['intercom'], values: [`${B}{60}`] },
  {
    id: 'jfrog-api-key, jfrog-identity-token',
    keywords: ['jfrog', 'artifactory', 'bintray', 'xray'],
    values: [`${A}{73}`, `${A}{64}`],
  },
  { id: 'kraken-access-token', keywords: ['kraken'], values: ['[a-z0-9/=_+-]{80,90}'] },
  { id: 'kucoin-access-token, -secret-key', keywords: ['kucoin'], values: [`${H}{24}`, UUID] },
  { id: 'launchdarkly-access-token', keywords: ['launchdarkly'], values: [`${B}{40}`] },
  { id: 'linear-client-secret', keywords: ['linear'], values: [`${H}{32}`] },
  {
    id: 'linkedin-client-id, -client-secret',
    keywords: ['linkedin', 'linked_in', 'linked-in'],
    values: [`${A}{14}`, `${A}{16}`],
  },
  { id: 'lob-api-key, lob-pub-api-key', keywords: ['lob'], values: [`(?:live|test)_(?:pub_${H}{31}|${H}{35})`] },
  { id: 'mailchimp-api-key', keywords: ['mailchimp'], values: [`${H}{32}-us[0-9]{1,2}`] },
  {
    id: 'mailgun-private-api-token, -pub-key, -signing-key',
    keywords: ['mailgun'],
    values: [`(?:pub)?key-${H}{32}`, '[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}'],
  },
  { id: 'mapbox-api-token', keywords: ['mapbox'], values: [`[ps]k\\.${A}{60}\\.${A}{22}`] },
  { id: 'mattermost-access-token', keywords: ['mattermost'], values: [`${A}{26}`] },
  {
    id: 'messagebird-api-token, -client-id',
    keywords: ['messagebird', 'message-bird', 'message_bird'],
    values: [`${A}{25}`, UUID],
  },
  { id: 'netlify-access-token', keywords: ['netlify'], values: [`${B}{40,46}`] },
  {
    id: 'new-relic-browser-api-token, -insert-key, -user-api-id, -user-api-key',
    keywords: ['new-relic', 'newrelic', 'new_relic'],
    values: [`NRJS-${H}{19}`, 'NRII-[a-z0-9-]{32}', `${A}{64}`, `NRAK-${A}{27}`],
  },
  { id: 'nytimes-access-token', keywords: ['nytimes', 'new-york-times', 'newyorktimes'], values: [`${B}{32}`] },
  { id: 'okta-access-token', keywords: ['okta'], values: ['00[a-z0-9_=-]{40}'] },
  {
    id: 'plaid-api-token, -client-id, -secret-key',
    keywords: ['plaid'],
    values: [`access-(?:sandbox|development|production)-${UUID}`, `${A}{24}`, `${A}{30}`],
  },
  { id: 'privateai-api-token', keywords: ['privateai', 'private_ai', 'private-ai'], values: [`${A}{32}`] },
  { id: 'rapidapi-access-token', keywords: ['rapidapi'], values: [`${T}{50}`] },
  { id: 'sendbird-access-id, -access-token', keywords: ['sendbird'], values: [UUID, `${H}{40}`] },
  { id: 'sentry-access-token', keywords: ['sentry'], values: [`${H}{64}`] },
  {
    id: 'sidekiq-secret',
    keywords: ['bundle_enterprise__contribsys__com', 'bundle_gems__contribsys__com'],
    values: [`${H}{8}:${H}{8}`],
  },
  { id: 'snyk-api-token', keywords: ['snyk'], values: [UUID] },
  { id: 'sonar-api-token', keywords: ['sonar'], values: [`${B}{40}`] },
  { id: 'sourcegraph-access-token', keywords: ['sourcegraph'], values: [`${H}{40}`] },
  { id: 'squarespace-access-token', keywords: ['squarespace'], values: [UUID] },
  { id: 'sumologic-access-id, -access-token', keywords: ['sumo'], values: [`su${A}{12}`, `${A}{64}`] },
  { id: 'telegram-bot-api-token', keywords: ['telegr'], values: ['[0-9]{5,16}:A[a-z0-9_-]{34}'] },
  { id: 'travisci-access-token', keywords: ['travis'], values: [`${A}{22}`] },
  // Twilio auth tokens: 32 hex digits.
  { id: 'twilio-auth-token', keywords: ['twilio'], values: [`${H}{32}`] },
  { id: 'twitch-api-token', keywords: ['twitch'], values: [`${A}{30}`] },
  {
    id: 'twitter-access-secret, -access-token, -api-key, -api-secret, -bearer-token',
    keywords: ['twitter'],
    values: [`${A}{45}`, `[0-9]{15,25}-${A}{20,40}`, `${A}{25}`, `${A}{50}`, 'A{22}[a-z0-9%]{80,100}'],
  },
  { id: 'typeform-api-token', keywords: ['typeform'], values: ['tfp_[a-z0-9_.=-]{59}'] },
  {
    id: 'yandex-access-token, -api-key, -aws-access-token',
    keywords: ['yandex'],
    values: ['t1\\.[a-z0-9_-]{1,200}={0,2}\\.[a-z0-9_-]{86}={0,2}', 'AQVN[a-z0-9_-]{35,38}', 'YC[a-z0-9_-]{38}'],
  },
  { id: 'zendesk-secret-key', keywords: ['zendesk'], values: [`${A}{40}`] },
  { id: 'looker-client-id, -client-secret', keywords: ['looker'], values: [`${A}{20}`, `${A}{24}`] },
  { id: 'braintree-tokenization-key', keywords: ['braintree'], values: [`(?:production|sandbox)_${A}{8}_${A}{16}`] },
  { id: 'adyen-client-key', keywords: ['adyen'], values: [`(?:test|live)_${A}{30,40}`] },
];

/** Where a value ends: no token character follows. */
const VALUE_END = '(?![A-Za-z0-9_=+/-])';
/**
 * gitleaks' assignment: name characters, quotes (maybe escaped) or spaces, an operator (`=`,
 * `:=` to `:::=`, `?=`, `+=`, `=>`, `:`, `>` as in `<nameToken>…`, `(`, `,`, `|`), then up to
 * five quotes, backticks, spaces, `=`, `|` or `>` (a YAML block) before the value.
 */
const ASSIGNED = `(?<name>[ \\t\\w.-]{0,20})(?:\\\\{0,2}['"]|\\s){0,5}(?:=>|[<>?+]?=|:{1,3}=|>|:|\\(|,|\\|\\|?)(?:\\\\{0,2}['"]|[\\x60\\s=|>]){0,5}`;
/** In prose: up to 40 characters of the same line, then a value that starts a token. */
const PROSE_GAP = '(?<gap>[^\\n]{0,40}?)(?<![A-Za-z0-9_=+/-])';
/** Words that make a value in prose after the keyword a credential. */
const CREDENTIAL_WORD = /key|token|secret|passw|auth|credential/i;

function familyRules(family: KeywordFamily): SecretRule[] {
  const keywords = `(?:${family.keywords.join('|')})`;
  const value = `(?<value>${family.values.join('|')})${VALUE_END}`;
  return [
    { id: family.id, pattern: new RegExp(`${keywords}${ASSIGNED}${value}`, 'dgi'), hints: family.keywords },
    {
      id: `${family.id} (prose)`,
      pattern: new RegExp(`${keywords}${PROSE_GAP}${value}`, 'dgi'),
      hints: family.keywords,
      accept: (match) =>
        CREDENTIAL_WORD.test(match.groups!.gap!) &&
        match.groups!.value!.length >= 20 &&
        /[0-9]/.test(match.groups!.value!) &&
        /[a-z]/i.test(match.groups!.value!),
    },
  ];
}

/** Shannon entropy of `text`, in bits per character. */
export function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) bits -= (count / text.length) * Math.log2(count / text.length);
  return bits;
}

const GENERIC_KEYWORDS = [
  'access',
  'auth',
  'api',
  'credential',
  'creds',
  'key',
  'passwd',
  'password',
  'secret',
  'token',
];
/** A name's last word that says it is about a credential, not one (gitleaks' generic allowlist, in short). */
const ABOUT =
  /(?:^|[^a-z])(?:id|ids|name|file|path|url|uri|endpoint|type|length|size|count|limit|format|field|header|prefix|version|alias|board|code|pair|press|ring|word|hash|fingerprint|checksum|policy|scope)$/i;

/**
 * gitleaks' generic-api-key: any name holding a credential word, in any of the assignment forms
 * above (the forms the assignment rule of redaction.ts does not read: `+=`, `?=`, `<nameToken>…`,
 * a YAML block, escaped JSON), with a value of 10+ characters that has a digit, a letter and
 * 3.5 bits of entropy per character, as gitleaks requires.
 */
const GENERIC: SecretRule = {
  id: 'generic-api-key',
  pattern: new RegExp(
    `(?:${GENERIC_KEYWORDS.join('|')})${ASSIGNED}(?<value>[\\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,150}={0,3})${VALUE_END}`,
    'dgi',
  ),
  hints: GENERIC_KEYWORDS,
  accept: (match) => {
    const value = match.groups!.value!;
    const name = match.input!.slice(match.index, match.indices!.groups!.name![1]);
    return (
      !ABOUT.test(name.trim()) &&
      !/public|fingerprint|sha[0-9]/i.test(name) &&
      /[0-9]/.test(value) &&
      /[a-z]/i.test(value) &&
      entropy(value) >= 3.5
    );
  },
};

export const KEYWORD_RULES: readonly SecretRule[] = [...FAMILIES.flatMap(familyRules), GENERIC];
