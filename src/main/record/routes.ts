import { UsageError } from '../command/args';

/*
 * Which upstream a request goes to: by the first path segment, one upstream per provider, so the
 * route is never a guess (`/anthropic/v1/messages` → the Anthropic upstream's `/v1/messages`).
 */

export const PROVIDERS = ['anthropic', 'openai', 'gemini'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const DEFAULT_UPSTREAMS: Readonly<Record<Provider, string>> = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com',
  gemini: 'https://generativelanguage.googleapis.com',
};

export type Upstreams = Readonly<Record<Provider, URL>>;

const isProvider = (s: string): s is Provider => (PROVIDERS as readonly string[]).includes(s);

/** An upstream URL: http or https, no query, no fragment, no credentials. */
function upstreamUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--upstream: "${text}" is not a URL (e.g. https://api.anthropic.com or http://127.0.0.1:9999/base)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--upstream: "${text}" must be http:// or https://`);
  // A user name or password in the URL would be a credential on the command line and in the capture header.
  if (url.username || url.password) throw new UsageError('--upstream: a URL must not carry a user name or password');
  if (url.search || url.hash) throw new UsageError(`--upstream: "${text}" must not have a query or fragment`);
  return url;
}

/**
 * The upstreams from the `--upstream` values, in order: `URL` sets all three providers,
 * `PROVIDER=URL` one of them (a later value wins).
 */
export function parseUpstreams(values: readonly string[]): Upstreams {
  const out = Object.fromEntries(PROVIDERS.map((p) => [p, new URL(DEFAULT_UPSTREAMS[p])])) as Record<Provider, URL>;
  for (const v of values) {
    const m = /^([A-Za-z][\w-]*)=(.*)$/.exec(v);
    if (m && !/^https?$/i.test(m[1] as string)) {
      const name = (m[1] as string).toLowerCase();
      if (!isProvider(name)) throw new UsageError(`--upstream: unknown provider "${m[1] as string}"; known: ${PROVIDERS.join(', ')}`);
      out[name] = upstreamUrl(m[2] as string);
    } else {
      const url = upstreamUrl(v);
      for (const p of PROVIDERS) out[p] = url;
    }
  }
  return out;
}

/** The path an upstream's requests start with ('' for none; never a trailing slash). */
const basePath = (u: URL): string => u.pathname.replace(/\/+$/, '');

/** `origin + base path` of an upstream, for the capture header and messages. */
export const upstreamText = (u: URL): string => `${u.origin}${basePath(u)}`;

export interface Route {
  readonly provider: Provider;
  readonly upstream: URL;
  /** Path and query as the upstream receives it: the upstream's base path, then the rest after the prefix. */
  readonly path: string;
}

/** The route of a request target (`/anthropic/v1/messages?beta=true`); null: no provider prefix. */
export function route(target: string, upstreams: Upstreams): Route | null {
  const m = /^\/([a-z]+)(?=[/?]|$)(.*)$/.exec(target);
  if (!m || !isProvider(m[1] as string)) return null;
  const provider = m[1] as Provider;
  const upstream = upstreams[provider];
  let rest = m[2] as string;
  if (!rest.startsWith('/')) rest = `/${rest}`;
  return { provider, upstream, path: `${basePath(upstream)}${rest}` };
}
