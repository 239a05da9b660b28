/**
 * The variables of a sandboxed shell's inherited environment that hold credentials: a token the developer exports in
 * their shell's startup (GH_TOKEN, AWS_SECRET_ACCESS_KEY, an *_API_KEY) was in every agent's shell, though the files
 * holding the same credentials (~/.config/gh, ~/.aws) are hidden. Judged by name (a word of it, `_`-separated, says
 * token, secret, password (or ends in one: PGPASSWORD), a key that is an API, access, private or secret one, credentials, a personal access token,
 * auth) and by value (a URL with a password: `postgres://user:pass@host`; a token in a format its issuer made to be
 * recognized, whatever the variable is called). ptydeck's own labels are kept.
 */
const SECRET_WORDS = new Set(['TOKEN', 'TOKENS', 'SECRET', 'SECRETS', 'PASSWORD', 'PASSWD', 'PASSPHRASE', 'PASS', 'PWD', 'CREDENTIAL', 'CREDENTIALS', 'PAT', 'AUTH', 'APIKEY', 'COOKIE', 'SESSIONID']);
const SECRET_ENDING = /(PASSWORD|PASSWD|TOKEN|SECRET|APIKEY)$/;
/** `<word>_KEY`: a key that unlocks something (not a SESSION_KEY label or a sort key). */
const KEY_KINDS = new Set(['API', 'ACCESS', 'PRIVATE', 'SECRET', 'SIGNING', 'ENCRYPTION', 'MASTER', 'LICENSE', 'ACCOUNT', 'SERVICE', 'AUTH', 'CLIENT']);
/** A URL whose user part carries a password. */
const URL_WITH_PASSWORD = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/;

/**
 * Values that are credentials by their own shape, the prefixes issuers put on tokens so that scanners find them: GitHub's
 * (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), GitLab's `glpat-`, OpenAI's and Anthropic's `sk-`, Slack's
 * `xox?-`, AWS access key ids, npm's `npm_`, Hugging Face's `hf_`, Google's `AIza`, Stripe's live keys, a JWT, a PEM
 * private key. A name that says nothing (`GH=ghp_...`, `OPENAI=sk-...`) passed before. Lengths keep short words out.
 */
const TOKEN_SHAPES = [
  /^gh[pousr]_[A-Za-z0-9]{30,}$/,
  /^github_pat_[A-Za-z0-9_]{40,}$/,
  /^glpat-[A-Za-z0-9_-]{20,}$/,
  /^sk-[A-Za-z0-9_-]{20,}$/,
  /^xox[abposr]-[A-Za-z0-9-]{10,}$/,
  /^(AKIA|ASIA)[0-9A-Z]{16}$/,
  /^npm_[A-Za-z0-9]{36}$/,
  /^hf_[A-Za-z0-9]{30,}$/,
  /^AIza[0-9A-Za-z_-]{35}$/,
  /^[sr]k_live_[A-Za-z0-9]{20,}$/,
  /^eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*$/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

/** Whether a variable looks like a credential. `PWD` alone (the working directory) and `OLDPWD` are not. */
export function isSecretVariable(name: string, value: string): boolean {
  if (name.startsWith('PTYDECK_') || name === 'PWD' || name === 'OLDPWD') return false;
  const words = name.toUpperCase().split('_').filter((word) => word !== '');
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    // PGPASSWORD, MYSQL_PWD's kin: a word that ends in one.
    if (SECRET_WORDS.has(word) || SECRET_ENDING.test(word)) return true;
    if (word === 'KEY' && index > 0 && KEY_KINDS.has(words[index - 1]!)) return true;
  }
  return URL_WITH_PASSWORD.test(value) || TOKEN_SHAPES.some((shape) => shape.test(value.trim()));
}

/** The names of `env`'s credentials, less those the developer keeps (config.json's `keepEnv`). */
export function secretNames(env: Readonly<Record<string, string | undefined>>, keep: readonly string[] = []): string[] {
  return Object.entries(env)
    .filter(([name, value]) => value !== undefined && !keep.includes(name) && isSecretVariable(name, value))
    .map(([name]) => name);
}
