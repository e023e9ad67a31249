import { z } from 'zod';
import { API_METHODS, ApiResultEnvelope, type ApiError, type ApiMethod, type ApiResult, type PalimpsestApi } from '../shared/api/contract';
import { adoptHostToken } from './host-token';

/**
 * The renderer's only way to the core: a `PalimpsestApi`, over one of two transports.
 * - Electron: the preload's `window.palimpsest` (IPC to the same handlers).
 * - Web host: POST /api/<method> on the origin that served this page, with the launch's token as
 *   `Authorization: Bearer` (./host-token.ts says where the page gets it).
 * Either way, every answer is `{ ok, value | error }`; failures of the transport become
 * `TRANSPORT` errors, never exceptions.
 */

declare global {
  interface Window {
    /** Set by the Electron preload (src/preload/index.ts). */
    readonly palimpsest?: PalimpsestApi;
    /** Set by the Electron preload: the path on disk of a File the user dropped ('' when it has none). */
    readonly palimpsestFiles?: { readonly pathOf: (file: File) => string };
  }
}

/** True in the Electron app (native dialogs, dropped files have paths); false in a browser. */
export function isDesktop(): boolean {
  return window.palimpsest !== undefined;
}

/** The paths of dropped files, where the app can know them (Electron); null in a browser. */
export function droppedPaths(files: FileList): string[] | null {
  const bridge = window.palimpsestFiles;
  if (!bridge) return null;
  return [...files].map((f) => bridge.pathOf(f)).filter((p) => p !== '');
}

// zod probes for eval (new Function) unless told not to; the CSP forbids eval, so never probe.
z.config({ jitless: true });

const transportError = (message: string): { ok: false; error: ApiError } => ({ ok: false, error: { code: 'TRANSPORT', message } });

function fromEnvelope(body: unknown, what: string): ApiResult<never> {
  const r = ApiResultEnvelope.safeParse(body);
  if (!r.success) return transportError(`${what}: the host answered outside the API contract.`);
  return r.data as ApiResult<never>;
}

function build(call: (method: ApiMethod, input: unknown) => Promise<ApiResult<unknown>>): PalimpsestApi {
  return Object.fromEntries(API_METHODS.map((m) => [m, (input: unknown) => call(m, input)])) as unknown as PalimpsestApi;
}

export function webApi(token: string | null, base = ''): PalimpsestApi {
  return build(async (method, input) => {
    if (token === null)
      return transportError(`${method}: this page has no access token. Open the URL \`palimpsest serve\` printed (it carries the token).`);
    let res: Response;
    try {
      res = await fetch(`${base}/api/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify(input ?? {}),
        // Nothing ambient: the header is the only credential this host takes.
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch (err: unknown) {
      return transportError(
        `${method}: the Palimpsest host cannot be reached (${err instanceof Error ? err.message : String(err)}). Is \`palimpsest serve\` still running?`,
      );
    }
    if (res.status === 401)
      return transportError(`${method}: not authorised. Open the URL \`palimpsest serve\` printed (it carries the token).`);
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      return transportError(`${method}: the host answered ${res.status} ${res.statusText} without a JSON body.`);
    }
    return fromEnvelope(body, method);
  });
}

export function electronApi(bridge: PalimpsestApi): PalimpsestApi {
  return build(async (method, input) => {
    try {
      const call = bridge[method] as (i: unknown) => Promise<unknown>;
      return fromEnvelope(await call(input), method);
    } catch (err: unknown) {
      return transportError(`${method}: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
}

/** The API of this window: Electron's bridge when present, else the web host that served the page. */
export function createApi(): PalimpsestApi {
  return window.palimpsest ? electronApi(window.palimpsest) : webApi(adoptHostToken());
}
