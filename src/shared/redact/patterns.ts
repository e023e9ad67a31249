/**
 * The secrets, addresses and paths redaction knows (docs/export.md, "Redaction"). Each rule has a
 * name (it becomes the marker `[REDACTED:name]`), a regular expression and an example that it must
 * match (the unit tests and the seeded fixture use the examples; the examples are made up).
 *
 * A rule whose regex has a named group `secret` replaces only that part, which must end the match:
 * `OPENAI_API_KEY=[REDACTED:env-secret]` keeps the name, `/home/[REDACTED:home-path]/src` the path.
 *
 * Every quantifier is bounded, so no rule backtracks for long on any text: the cost of a match
 * attempt is at most the bound, whatever the length of the line.
 *
 * Order matters: a provider's own rule runs before the generic assignment rules, so a key gets its
 * provider's name; the assignment rules never take a value that is already a marker (markers are
 * written with private-use characters while redaction runs, which no value class admits).
 */
export interface RedactionRule {
  readonly name: string;
  readonly regex: RegExp;
  /** A made-up text the rule must redact. */
  readonly example: string;
  /** The part of the example that must not survive redaction. */
  readonly secret: string;
  /** A near miss the rule must leave alone. */
  readonly near: string;
  /** What it stands for, in the words of docs/export.md. */
  readonly what: string;
}

/** A value of an assignment: no space, backslash, quote, backtick or private-use character (a marker in the making). */
const VALUE = '[^\\s\\\\"\'`\\uE000-\\uF8FF]';

/** What a PEM body holds: base64, whitespace (or \n written out), and the header lines of an encrypted key. */
const PEM_BODY = '[A-Za-z0-9+/=\\s\\\\:,-]';

const rule = (
  name: string,
  source: string,
  flags: string,
  what: string,
  example: string,
  near: string,
  secret = example,
): RedactionRule => ({
  name,
  regex: new RegExp(source, `g${flags}`),
  example,
  secret,
  near,
  what,
});

export const RULES: readonly RedactionRule[] = [
  rule(
    'gcp-service-account-key',
    '\\\\?"private_key\\\\?"\\s{0,10}:\\s{0,10}\\\\?"(?<secret>(?:[^"\\\\]|\\\\[^"]){1,20000})',
    '',
    'the private_key of a Google Cloud service-account JSON key file',
    '{"type": "service_account", "private_key": "MIIEvQIBADANBgkqhkiG9w0BAQEFAKEFAKEFAKE"}',
    '{"private_key_id": "0123abcd"}',
    'MIIEvQIBADANBgkqhkiG9w0BAQEFAKEFAKEFAKE',
  ),
  rule(
    'pem-private-key',
    `-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----(?:[\\s\\S]{0,20000}?-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----|${PEM_BODY}{0,20000})`,
    '',
    'a PEM private key block (RSA, EC, OpenSSH, PKCS#8), also with its newlines written as \\n',
    '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1x2y3z4FAKEKEYFAKEKEYFAKEKEYx9\n-----END RSA PRIVATE KEY-----',
    '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqh\n-----END PUBLIC KEY-----',
  ),
  rule(
    'anthropic-key',
    '\\bsk-ant-(?:api|admin|oat|ort)\\d{2}-[A-Za-z0-9_-]{20,300}',
    '',
    'an Anthropic API, admin or OAuth key (sk-ant-…)',
    'sk-ant-api03-Fake0Key1For2Tests3Only4Abc5Def6Ghi7Jkl8Mno9Pqr-AA',
    'sk-ant-example',
  ),
  rule(
    'openai-key',
    '\\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9][A-Za-z0-9_-]{30,300}',
    '',
    'an OpenAI API key (sk-…, sk-proj-…, sk-svcacct-…)',
    'sk-proj-Fake0OpenAI1Key2For3Tests4Only5abcdefGHIJKL',
    'sk-learn and task-runner',
  ),
  rule(
    'google-api-key',
    '\\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])',
    '',
    'a Google API key (AIza…)',
    'AIzaSyFAKE0key1for2tests3only4abcdeGHIJ',
    'AIza is a prefix',
  ),
  rule(
    'github-token',
    '\\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})',
    '',
    'a GitHub token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)',
    'ghp_Fake0GitHub1Token2For3Tests4Only5abcd',
    'ghp_short',
  ),
  rule(
    'gitlab-token',
    '\\bgl(?:pat|ptt|dt|rt|cbt|oas)-[A-Za-z0-9_-]{20,255}',
    '',
    'a GitLab token (glpat-, glptt-, gldt-, glrt-, …)',
    'glpat-Fake0GitLab1Token2For3',
    'glpat-short',
  ),
  rule(
    'slack-token',
    '\\bxox[abposr]-[A-Za-z0-9-]{10,255}|https://hooks\\.slack\\.com/(?:services|workflows)/[A-Za-z0-9/_-]{10,255}',
    '',
    'a Slack token (xoxb-, xoxp-, …) or incoming-webhook URL',
    'xoxb-123456789012-1234567890123-FakeSlackTokenForTests',
    'xoxo-hugs',
  ),
  rule(
    'stripe-key',
    '\\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,255}',
    '',
    'a Stripe key (sk_live_, rk_live_, pk_live_ and the _test_ ones)',
    'sk_live_Fake0Stripe1Key2For3Tests',
    'sk_live_short',
  ),
  rule(
    'aws-access-key',
    '\\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}(?![A-Za-z0-9])',
    '',
    'an AWS access key id (AKIA…, ASIA…, and the other IAM id prefixes)',
    'AKIAFAKEKEYFORTESTS7',
    'AKIA-not-a-key',
  ),
  rule(
    'aws-secret-key',
    '(?:aws_?secret_?access_?key|aws_?secret_?key|secretAccessKey)["\']?\\s{0,10}[:=]\\s{0,10}["\']?(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])',
    'i',
    'an AWS secret access key given to its name (aws_secret_access_key = …)',
    'aws_secret_access_key = FakeAwsSecretKeyForTests0123456789abcdef',
    'aws_secret_access_key = short',
    'FakeAwsSecretKeyForTests0123456789abcdef',
  ),
  rule(
    'azure-key',
    '(?:AccountKey|SharedAccessKey)=(?<secret>[A-Za-z0-9+/]{20,255}={0,2})|[?&]sig=(?<sas>[A-Za-z0-9%+/=]{20,255})',
    '',
    'an Azure storage account or Service Bus key in a connection string, or a SAS URL signature',
    'DefaultEndpointsProtocol=https;AccountName=fake;AccountKey=FakeAzureKeyForTests0123456789abcdef==;EndpointSuffix=core.windows.net',
    'AccountName=fake',
    'FakeAzureKeyForTests0123456789abcdef==',
  ),
  rule(
    'jwt',
    '\\beyJ[A-Za-z0-9_-]{8,4096}\\.eyJ[A-Za-z0-9_-]{8,8192}\\.[A-Za-z0-9_-]{8,4096}',
    '',
    'a JSON Web Token (three base64url parts, the first two JSON objects)',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlIn0.FakeSignatureForTests0123',
    'eyJhbGciOiJIUzI1NiJ9 alone',
  ),
  rule(
    'env-secret',
    `\\b(?:export\\s{1,10})?(?:[A-Z][A-Z0-9_]{0,100})?(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|CREDENTIALS?)\\s{0,10}=\\s{0,10}["']?(?<secret>${VALUE}{1,4096})`,
    '',
    'an .env or shell assignment to a name ending in KEY, TOKEN, SECRET, PASSWORD, PASSWD, PWD or CREDENTIALS',
    'DATABASE_PASSWORD=fake-hunter2-for-tests',
    'MAX_TOKENS=4096',
    'fake-hunter2-for-tests',
  ),
  rule(
    'secret-field',
    `(?:password|passwd|secret|client_secret|api_?key|access_?token|auth_?token|refresh_?token|secret_?key|private_?token)\\\\?["']?\\s{0,10}[:=]\\s{0,10}\\\\?["'](?<secret>${VALUE}{4,4096})`,
    'i',
    'a JSON or YAML field named password, secret, api_key, access_token, … with a quoted value',
    '{"api_key": "fake-field-secret-for-tests"}',
    '{"api_key_hint": "see the docs"}',
    'fake-field-secret-for-tests',
  ),
  rule(
    'email',
    '\\b[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\\.[A-Za-z0-9-]{1,63}){0,8}\\.[A-Za-z]{2,24}\\b',
    '',
    'an e-mail address',
    'jane.doe+tests@example.com',
    '@scope/package and user@localhost',
  ),
  rule(
    'home-path',
    '(?:(?<![A-Za-z0-9_.-])(?:/home/|/Users/)|\\b[A-Za-z]:(?:\\\\\\\\|\\\\|/)Users(?:\\\\\\\\|\\\\|/))(?<secret>[^/\\\\\\s"\'`:;,<>|\\uE000-\\uF8FF]{1,255})',
    '',
    'the user name in a home-folder path (/home/NAME, /Users/NAME, C:\\Users\\NAME)',
    '/home/janedoe/projects/app/main.ts',
    '/homework/notes.txt',
    'janedoe',
  ),
];
