/**
 * The names of the API methods, without their schemas, so that the Electron preload (which must stay
 * tiny and bundles everything it imports) can expose exactly these and nothing else. The schemas are
 * in ./contract.ts, which checks that it defines exactly these methods.
 */
export const API_METHODS = [
  'initialSessions',
  'openSession',
  'closeSession',
  'listRequests',
  'listCompactions',
  'listDiagnostics',
  'getView',
  'listEvents',
] as const;

export type ApiMethod = (typeof API_METHODS)[number];

const NAMES: ReadonlySet<string> = new Set<string>(API_METHODS);

export function isApiMethod(name: string): name is ApiMethod {
  return NAMES.has(name);
}

/** The IPC channel of a method (Electron transport). */
export function ipcChannel(method: ApiMethod): string {
  return `palimpsest:${method}`;
}
