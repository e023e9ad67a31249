/**
 * The names of the API methods, without their schemas, so that the Electron preload (which must stay
 * tiny and bundles everything it imports) can expose exactly these and nothing else. The schemas are
 * in ./contract.ts, which checks that it defines exactly these methods.
 */
export const API_METHODS = [
  'initialSessions',
  'openSession',
  'prepareSession',
  'closeSession',
  'openingSessions',
  'listRequests',
  'listCompactions',
  'listDiagnostics',
  'getView',
  'listEvents',
  // The session inspector (docs/session-view.md; schemas in ./session-contract.ts).
  'getSessionInfo',
  'awaitSessionChange',
  'getViewHead',
  'getViewWindow',
  'getItemText',
  'getEventText',
  'getAlignment',
  'getTokenMeter',
  'getTokenSeries',
  'getCompaction',
  'listFates',
  'diffViews',
  // The app shell (docs/session-view.md; schemas in ./library-contract.ts).
  'discoverSessions',
  'pickPaths',
  'searchSession',
  'searchLibrary',
  // Re-run and compare (docs/rerun.md; schemas in ./rerun-contract.ts).
  'listStrategies',
  'listRuns',
  'startRerun',
  'cancelRerun',
  'watchRerun',
  'listRerunJobs',
  'compareRuns',
  'providerKeys',
  'setProviderKey',
  'removeProviderKey',
  'rerunSettings',
  'setSummarizationChain',
  // Offline evaluation (docs/eval.md; schemas in ./eval-contract.ts).
  'listEvalFiles',
  'openEvalResults',
  'startEval',
  'watchEval',
  'cancelEval',
  'listEvalJobs',
  'evalRunDetail',
  // A session joined with captures (schemas in ./capture-contract.ts).
  'listTimeline',
  'getWireRequest',
  // Compaction health across the library's sessions (docs/health.md; schemas in ./health-contract.ts).
  'healthReport',
  'healthProgress',
  // Export, redacted or not (docs/export.md; schemas in ./export-contract.ts).
  'previewExport',
  'exportSession',
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
