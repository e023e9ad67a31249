import type { PinnedModel, ProviderId } from '../../shared/rerun/pinned';
import { ANTHROPIC_BASE_URL } from './anthropic';
import { GEMINI_BASE_URL } from './gemini';
import { OPENAI_BASE_URL } from './openai-chat';

/*
 * Where a key may be sent. A pinned model names its endpoint (`baseUrl`) and the variable its key
 * is in (`keyEnv`), and both can arrive through the API: whoever holds a host's access token could
 * otherwise ask for `OPENAI_API_KEY` to be sent to a server of their own. So a key goes only to
 * - the provider's own endpoint (no `baseUrl`, or a `baseUrl` on the provider's official origin), or
 * - an origin the user approved: on the command line that started the process (the CLI's `--model
 *   …@URL`, an eval spec they named, `serve --allow-endpoint`), or in a native dialog of the desktop
 *   app, which a page cannot answer for them.
 * Approval is per origin (scheme, host and port): a path on the same server is the same server.
 */

/** The providers' public API origins (the adapters' own defaults): a key given to one of these goes to its provider. */
export const OFFICIAL_ORIGINS: Readonly<Record<ProviderId, readonly string[]>> = {
  openai: [new URL(OPENAI_BASE_URL).origin],
  'openai-responses': [new URL(OPENAI_BASE_URL).origin],
  anthropic: [new URL(ANTHROPIC_BASE_URL).origin],
  gemini: [new URL(GEMINI_BASE_URL).origin],
  mock: [],
};

/** What the user is asked to approve. */
export interface EndpointQuestion {
  readonly origin: string;
  readonly provider: ProviderId;
  /** The environment variable or stored-key name the key comes from (never the key). */
  readonly keyFrom: string;
}

/** Asks the user, where a host can (the desktop app's dialog); resolves true only on their yes. */
export type AskEndpoint = (question: EndpointQuestion) => Promise<boolean>;

/** The origin of an endpoint URL, or null when it is not an http(s) URL. */
export function endpointOrigin(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

export class EndpointApprovals {
  private readonly approved = new Set<string>();

  /** `urls`: endpoints approved from the start (command line); anything not http(s) is ignored. */
  constructor(
    urls: Iterable<string> = [],
    private readonly ask: AskEndpoint | null = null,
  ) {
    for (const url of urls) this.approve(url);
  }

  /** Approves the origin of `url` for the life of this object. */
  approve(url: string): void {
    const origin = endpointOrigin(url);
    if (origin !== null) this.approved.add(origin);
  }

  /** Whether a key from `keyFrom` may be sent to this model's endpoint; asks the user when it can. */
  async allows(model: Pick<PinnedModel, 'provider' | 'baseUrl'>, keyFrom: string): Promise<boolean> {
    if (model.baseUrl === undefined) return true;
    const origin = endpointOrigin(model.baseUrl);
    if (origin === null) return false;
    if (OFFICIAL_ORIGINS[model.provider].includes(origin) || this.approved.has(origin)) return true;
    if (this.ask === null) return false;
    const yes = await this.ask({ origin, provider: model.provider, keyFrom }).catch(() => false);
    if (yes) this.approved.add(origin);
    return yes;
  }

  /** The sentence a refused call reports: what was not sent, where, and how to approve it. */
  static refusal(model: Pick<PinnedModel, 'baseUrl'>, keyFrom: string): string {
    const origin = (model.baseUrl !== undefined ? endpointOrigin(model.baseUrl) : null) ?? String(model.baseUrl);
    return (
      `Not sending the key from ${keyFrom} to ${origin}: that endpoint is not approved for keys. ` +
      `Approve it when starting Palimpsest (\`--allow-endpoint ${origin}\` on \`serve\`, \`rerun\` or \`eval\`), ` +
      "or in the desktop app's prompt, or use the provider's own endpoint."
    );
  }
}
