/**
 * Provider tokens that say what they are by their own look (a prefix, a fixed shape), wherever
 * they appear: one rule per kind of gitleaks' default rule set that has such a shape (its ids
 * in the comments where ours differ), and a few it lacks (Stripe webhook secrets, Discord bot
 * tokens, Square application secrets). Our own expressions of the public formats; a token
 * longer than its documented length is redacted whole, never left with a visible tail.
 *
 * Every pattern is linear on any input: it may only start where a run of token characters
 * starts (`START`), a failing attempt is bounded by a fixed or `{m,n}` part, and an open-ended
 * run only follows a prefix that already matched.
 */
import type { SecretRule } from './secret-rule.js';

/** A token's characters after its prefix. */
export const TOKEN = '[A-Za-z0-9_-]';
/** Not preceded by a token character: the prefix starts a token. */
export const START = '(?<![A-Za-z0-9_-])';
/** Not followed by a letter or a digit: a fixed-length shape ends here. */
const END = '(?![A-Za-z0-9])';
const HEX = '[a-fA-F0-9]';
const ALNUM = '[A-Za-z0-9]';

export function prefixed(id: string, source: string, hints: readonly string[], flags = 'gd'): SecretRule {
  return { id, pattern: new RegExp(`${START}${source}`, flags), hints };
}

export const TOKEN_RULES: readonly SecretRule[] = [
  // OpenAI / Anthropic keys (sk-…, sk-proj-…, sk-ant-api03-…, sk-ant-admin01-…): a known kind,
  // or a digit among the first 40 characters (so `sk-learn-compatible` stays prose).
  prefixed('openai-anthropic-key', `sk-(?=(?:proj|svcacct|admin|ant)-|${TOKEN}{0,40}[0-9])${TOKEN}{20,}`, ['sk-']),
  prefixed('stripe-key', `(?:sk|rk)_(?:test|live|prod)_${ALNUM}{10,}`, ['sk_', 'rk_']),
  prefixed('stripe-webhook-secret', `whsec_${ALNUM}{24,}`, ['whsec_']),
  prefixed('github-token', `gh[pousr]_${ALNUM}{20,}`, ['gh']),
  prefixed('github-fine-grained-pat', 'github_pat_[A-Za-z0-9_]{20,}', ['github_pat_']),
  // gitlab-pat (and its routable form), -cicd-job, -deploy, -feature-flag-client, -feed,
  // -incoming-mail, -kubernetes-agent, -oauth-app-secret, -ptt, -runner-authentication, -scim.
  prefixed(
    'gitlab-token',
    `gl(?:pat|dt|ptt|rt|cbt|soat|ft|imt|agent|ffct|oas)-${TOKEN}{20,}(?:\\.[a-z0-9]{9}${END})?`,
    ['gl'],
  ),
  prefixed('gitlab-runner-registration-token', `GR1348941${TOKEN}{20,}`, ['gr1348941']),
  {
    id: 'gitlab-session-cookie',
    pattern: /_gitlab_session=(?<value>[0-9a-z]{32,})/dg,
    hints: ['_gitlab_session='],
  },
  // Slack bot, user, legacy, workspace and configuration tokens (xoxe.xoxb-…), and app tokens.
  prefixed('slack-token', '(?:xoxe\\.)?xox[abposre]-[A-Za-z0-9-]{10,}', ['xox']),
  prefixed('slack-app-token', 'xapp-[0-9]-[A-Za-z0-9]+-[0-9]+-[A-Za-z0-9]+', ['xapp-'], 'gdi'),
  prefixed('aws-access-key-id', `(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}${END}`, [
    'a3t',
    'akia',
    'asia',
    'abia',
    'acca',
  ]),
  // JWTs, as this project always knew them and as gitleaks writes them; base64-wrapped JWTs.
  prefixed('jwt', `eyJ${TOKEN}{10,}\\.eyJ${TOKEN}*(?:\\.${TOKEN}*)?`, ['eyj']),
  prefixed('jwt-gitleaks', 'ey[A-Za-z0-9]{17,}\\.ey[A-Za-z0-9/\\\\_-]{17,}(?:\\.[A-Za-z0-9/\\\\_-]{10,}={0,2})?', [
    'ey',
  ]),
  prefixed('jwt-base64', 'ZXlK[A-Za-z0-9/\\\\_+-]{40,}={0,2}', ['zxlk']),
  prefixed('grafana-api-key', `eyJrIjoi${ALNUM}{70,}={0,3}`, ['eyjrijoi']),
  prefixed('npm-token', `npm_${ALNUM}{30,}`, ['npm_']),
  prefixed('google-api-key', `AIza${TOKEN}{30,}`, ['aiza']),
  prefixed('google-oauth-client-secret', `GOCSPX-${TOKEN}{20,}`, ['gocspx-']),
  prefixed('google-oauth-access-token', `ya29\\.${TOKEN}{20,}`, ['ya29.']),
  prefixed('huggingface-token', `hf_${ALNUM}{20,}`, ['hf_']),
  prefixed('huggingface-organization-token', 'api_org_[A-Za-z]{34,}', ['api_org_']),
  prefixed('sendgrid-key', `SG\\.${TOKEN}{16,32}\\.${TOKEN}{16,}`, ['sg.']),
  prefixed('sendinblue-key', `xkeysib-${HEX}{64}-${ALNUM}{16,}`, ['xkeysib-']),
  prefixed('digitalocean-token', `do[opr]_v1_${ALNUM}{32,}`, ['_v1_']),
  prefixed('shopify-token', `shp(?:at|ca|pa|ss)_${HEX}{32}`, ['shp']),
  prefixed('pypi-token', `pypi-AgEIcHlwaS5vcmc${TOKEN}{20,}`, ['pypi-']),
  prefixed('rubygems-token', `rubygems_${HEX}{48,}`, ['rubygems_']),
  prefixed('clojars-token', `CLOJARS_${ALNUM}{50,}`, ['clojars_'], 'gdi'),
  prefixed('databricks-token', 'dapi[a-f0-9]{32}(?:-[0-9])?', ['dapi']),
  // Vault service and batch tokens, and the legacy `s.` service token (a digit among its 24).
  prefixed('vault-token', `hv[sb]\\.${TOKEN}{24,}`, ['hvs.', 'hvb.']),
  prefixed('vault-legacy-token', `s\\.(?=[A-Za-z]{0,23}[0-9])${ALNUM}{24}${END}`, ['s.']),
  prefixed('terraform-cloud-token', `${ALNUM}{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,}`, ['atlasv1']),
  prefixed('linear-key', `lin_api_${ALNUM}{40}`, ['lin_api_']),
  prefixed('postman-key', `PMAK-${HEX}{24}-${HEX}{34}`, ['pmak-']),
  prefixed('sentry-token', 'sntry[us]_[A-Za-z0-9_=+/.-]{30,}', ['sntry']),
  prefixed('twilio-key', `SK${HEX}{32}${END}`, ['sk']),
  prefixed('doppler-token', `dp\\.(?:pt|st|sa|ct|scim|audit)\\.${ALNUM}{30,}`, ['dp.']),
  prefixed('grafana-token', `(?:glsa_${ALNUM}{32}_${HEX}{8}|glc_[A-Za-z0-9+/]{32,}={0,2})`, ['glsa_', 'glc_']),
  prefixed('planetscale-token', 'pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,}', ['pscale_']),
  prefixed('age-secret-key', 'AGE-SECRET-KEY-1[0-9A-Z]{58}', ['age-secret-key-']),
  prefixed('notion-token', `(?:ntn_[0-9]{11}${ALNUM}{35}|secret_${ALNUM}{43})`, ['ntn_', 'secret_']),
  prefixed('atlassian-token', 'ATATT3[A-Za-z0-9_=-]{100,}', ['atatt3']),
  prefixed('heroku-token', `HRKU-${TOKEN}{30,}`, ['hrku-']),
  prefixed('mailgun-key', `(?:pub)?key-${HEX}{32}${END}`, ['key-']),
  prefixed('onepassword-token', 'ops_eyJ[A-Za-z0-9+/=]{100,}', ['ops_']),
  prefixed(
    'onepassword-secret-key',
    `A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}${END}`,
    ['a3-'],
  ),
  prefixed('adobe-client-secret', `p8e-${ALNUM}{32,}`, ['p8e-']),
  prefixed('alibaba-access-key-id', `LTAI${ALNUM}{20}${END}`, ['ltai']),
  prefixed('artifactory-api-key', `AKCp${ALNUM}{60,}`, ['akcp']),
  prefixed('artifactory-reference-token', `cmVmd${ALNUM}{50,}`, ['cmvmd']),
  prefixed(
    'authress-access-key',
    `(?:sc|ext|scauth|authress)_${ALNUM}{5,30}\\.${ALNUM}{4,6}\\.acc[_-][A-Za-z0-9-]{10,32}\\.[A-Za-z0-9+/_=-]{30,120}`,
    ['.acc_', '.acc-'],
  ),
  prefixed('clickhouse-cloud-key', `4b1d${ALNUM}{38}${END}`, ['4b1d']),
  prefixed('cloudflare-origin-ca-key', 'v1\\.0-[a-f0-9]{24}-[a-f0-9]{100,}', ['v1.0-']),
  prefixed('duffel-token', 'duffel_(?:test|live)_[A-Za-z0-9_=-]{40,}', ['duffel_']),
  prefixed('dynatrace-token', `dt0c01\\.${ALNUM}{24}\\.${ALNUM}{64}`, ['dt0c01.']),
  prefixed('easypost-token', `EZ[AT]K${ALNUM}{50,}`, ['ezak', 'eztk']),
  prefixed('flutterwave-key', `FLW(?:SECK|PUBK)(?:_TEST)?-${ALNUM}{12,}(?:-X)?`, ['flwseck', 'flwpubk']),
  prefixed('flyio-token', `(?:fo1_${TOKEN}{40,}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})`, ['fo1_', 'fm1', 'fm2_']),
  prefixed('frameio-token', 'fio-u-[A-Za-z0-9_=-]{60,}', ['fio-u-']),
  prefixed('harness-token', `(?:pat|sat)\\.${TOKEN}{22}\\.${ALNUM}{24}\\.${ALNUM}{20}`, ['pat.', 'sat.']),
  prefixed('infracost-token', `ico-${ALNUM}{32}${END}`, ['ico-']),
  prefixed('intra42-client-secret', `s-s4t2(?:ud|af)-${HEX}{64}`, ['s-s4t2']),
  prefixed('maxmind-license-key', `${ALNUM}{6}_${ALNUM}{29}_mmk`, ['_mmk']),
  prefixed('new-relic-key', `(?:NRAK-[A-Z0-9]{27}|NRJS-[a-f0-9]{19}|NRII-[A-Za-z0-9-]{32})`, [
    'nrak-',
    'nrjs-',
    'nrii-',
  ]),
  prefixed('octopus-deploy-key', `API-[A-Z0-9]{26}${END}`, ['api-']),
  prefixed('openshift-token', `sha256~${TOKEN}{43}`, ['sha256~']),
  prefixed('perplexity-key', `pplx-${ALNUM}{48}`, ['pplx-']),
  prefixed('prefect-token', `pnu_${ALNUM}{36}`, ['pnu_']),
  prefixed('pulumi-token', 'pul-[a-f0-9]{40}', ['pul-']),
  prefixed('readme-token', 'rdme_[a-z0-9]{70}', ['rdme_']),
  prefixed('scalingo-token', `tk-us-${TOKEN}{48}`, ['tk-us-']),
  prefixed('settlemint-token', `sm_(?:aat|pat|sat)_${ALNUM}{16}`, ['sm_aat', 'sm_pat', 'sm_sat']),
  prefixed('shippo-token', `shippo_(?:live|test)_${HEX}{40}`, ['shippo_']),
  prefixed('sourcegraph-token', `sgp_(?:${HEX}{16}_|local_)?${HEX}{40}`, ['sgp_']),
  // Square access tokens (EAAA…, sq0atp-…) and application secrets (sq0csp-…).
  prefixed('square-token', `(?:EAAA|sq0atp-|sq0csp-)${TOKEN}{22,}`, ['eaaa', 'sq0atp-', 'sq0csp-']),
  // Facebook page and user access tokens (EAAM…, EAAC…, EAAB…, EAAG…).
  prefixed('facebook-access-token', `EAA[A-Z]${ALNUM}{100,}`, ['eaa']),
  prefixed('typeform-token', 'tfp_[A-Za-z0-9_.=-]{59}', ['tfp_']),
  prefixed('dropbox-short-lived-token', 'sl\\.[A-Za-z0-9_=-]{130,}', ['sl.']),
  // Rules of gitleaks' newer releases: Groq, LangSmith, Cast AI, Chief Tools, Braintree, Adyen,
  // Azure Data Factory runtime keys, Django's generated insecure secret keys.
  prefixed('groq-api-key', `gsk_${ALNUM}{48}`, ['gsk_']),
  prefixed('langsmith-api-key', `lsv2_(?:pt|sk)_${ALNUM}{32}_${ALNUM}{10}`, ['lsv2_']),
  prefixed('castai-api-key', `castai_v1_${ALNUM}{64}_${ALNUM}{8}`, ['castai_v1_']),
  prefixed('chieftools-token', `ct[por]_${ALNUM}{30,248}`, ['ctp_', 'cto_', 'ctr_']),
  prefixed('braintree-access-token', `access_token\\$(?:production|sandbox)\\$${ALNUM}{16}`, ['access_token$']),
  prefixed('adyen-api-key', `AQE${ALNUM}{5,}\\.[A-Za-z0-9_=-]{50,80}`, ['aqe']),
  prefixed('datafactory-shir-key', `IR@[0-9a-zA-Z-]{36}@[^@\\s]{1,200}@[0-9a-zA-Z=-]{0,100}@[A-Za-z0-9+/=]{44}`, [
    'ir@',
  ]),
  prefixed('django-insecure-secret-key', 'django-insecure-[^"\'\\s]{1,250}', ['django-insecure-']),
  {
    id: 'claude-code-session-url',
    pattern: /claude\.ai\/code\/(?<value>session_[A-Za-z0-9]{16,})/dgi,
    hints: ['claude.ai/code/session_'],
  },
  // Discord bot tokens: the bot's id in base64, a dot, 6 characters, a dot, the HMAC.
  prefixed('discord-bot-token', `[MNO]${TOKEN}{23,27}\\.${TOKEN}{6}\\.${TOKEN}{27,40}`, ['.']),
  // Azure AD client secrets: three characters, a digit, `Q~`, 31 to 34 more.
  {
    id: 'azure-ad-client-secret',
    pattern: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/dg,
    hints: ['q~'],
  },
  // A Telegram bot token: the bot id, a colon, 35 characters starting AA.
  { id: 'telegram-bot-token', pattern: /(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}/dg, hints: [':aa'] },
  // A Facebook app access token: the app id, `|` (or `%7C`), the app secret.
  {
    id: 'facebook-app-token',
    pattern: /(?<![A-Za-z0-9])[0-9]{15,16}(?:\||%7C)[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/dgi,
    hints: ['facebook', 'fb'],
  },
];
