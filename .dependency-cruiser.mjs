// @ts-check
/*
 * Which folder may import which, checked by dependency-cruiser (`npm run deps`, part of `npm test`).
 * eslint.config.js guards the outer layers file by file (src/shared pure, the renderer apart from
 * src/main, electron only in the shell); this file sees the whole graph: cycles across folders, and
 * the folders of src/main each folder may import. Every src/main folder may import src/shared and
 * packages; a src/main folder not in the table may import no other src/main folder.
 *
 * src/main, lowest layer first (a folder imports only folders above it in this table):
 *
 *   folder     may import (besides itself and src/shared)
 *   access     —          ApiFailure and PathPolicy, below the API and the library
 *   async      —
 *   command    —          the command-line plumbing: argument parser, exit codes, --json failure, Io
 *   dialects   —
 *   files      —
 *   jobs       —
 *   workers    —
 *   reader     files
 *   importers  dialects files reader
 *   session    files importers reader workers
 *   tokens     session workers
 *   wire       dialects session
 *   search     session
 *   present    session tokens   the JSON and text shapes the CLI prints and the API answers with
 *   providers  async
 *   capture    files importers providers reader session wire
 *   follow     capture present session   following a session while it is written
 *   mock       async capture files providers wire
 *   discovery  dialects files reader
 *   health     discovery files session tokens   per-session health rows and where they come from
 *   catalog    discovery health session workers   the session index: summaries, item texts and fates,
 *              full-text search, the health rows it keeps
 *   library    access catalog discovery files importers reader
 *   rerun      capture files jobs mock providers session tokens
 *   record     capture command files wire
 *   eval       access files importers jobs mock providers rerun session
 *   fidelity   capture command dialects mock session wire
 *   api        access capture eval files follow health importers library present providers rerun search session
 *              tokens
 *   host       api discovery files library providers   what every host builds: context, static files
 *   web        api host                                 the loopback HTTP transport
 *   electron   api discovery host library providers    the Electron shell and its IPC transport
 *   cli        api capture catalog command discovery eval files follow health host importers present
 *              providers record rerun session tokens web wire
 *
 * rerun, eval and fidelity import the mock on purpose: a `mock` model starts the mock provider in
 * process, and the fidelity suite runs the real clients against it.
 */

/** src/main folder → the other src/main folders it may import. */
const LAYERS = {
  access: [],
  async: [],
  command: [],
  dialects: [],
  files: [],
  jobs: [],
  workers: [],
  reader: ['files'],
  importers: ['dialects', 'files', 'reader'],
  session: ['files', 'importers', 'reader', 'workers'],
  tokens: ['session', 'workers'],
  wire: ['dialects', 'session'],
  search: ['session'],
  present: ['session', 'tokens'],
  providers: ['async'],
  capture: ['files', 'importers', 'providers', 'reader', 'session', 'wire'],
  follow: ['capture', 'present', 'session'],
  mock: ['async', 'capture', 'files', 'providers', 'wire'],
  discovery: ['dialects', 'files', 'reader'],
  health: ['discovery', 'files', 'session', 'tokens'],
  catalog: ['discovery', 'health', 'session', 'workers'],
  library: ['access', 'catalog', 'discovery', 'files', 'importers', 'reader'],
  rerun: ['capture', 'files', 'jobs', 'mock', 'providers', 'session', 'tokens'],
  record: ['capture', 'command', 'files', 'wire'],
  eval: ['access', 'files', 'importers', 'jobs', 'mock', 'providers', 'rerun', 'session'],
  fidelity: ['capture', 'command', 'dialects', 'mock', 'session', 'wire'],
  api: [
    'access',
    'capture',
    'eval',
    'files',
    'follow',
    'health',
    'importers',
    'library',
    'present',
    'providers',
    'rerun',
    'search',
    'session',
    'tokens',
  ],
  host: ['api', 'discovery', 'files', 'library', 'providers'],
  web: ['api', 'host'],
  electron: ['api', 'discovery', 'host', 'library', 'providers'],
  cli: [
    'api',
    'capture',
    'catalog',
    'command',
    'discovery',
    'eval',
    'files',
    'follow',
    'health',
    'host',
    'importers',
    'present',
    'providers',
    'record',
    'rerun',
    'session',
    'tokens',
    'web',
    'wire',
  ],
};

const alternatives = (names) => `(${names.join('|')})`;

/** One rule per folder: its imports of src/main stay within the folder and its row of LAYERS. */
const layerRules = Object.entries(LAYERS).map(([folder, allowed]) => ({
  name: `layer-${folder}`,
  comment: `src/main/${folder} may import only these src/main folders: ${allowed.length ? allowed.join(', ') : 'none'} (table at the top of .dependency-cruiser.mjs).`,
  severity: 'error',
  from: { path: `^src/main/${folder}/` },
  to: { path: '^src/main/', pathNot: `^src/main/${alternatives([folder, ...allowed])}/` },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...layerRules,
    {
      name: 'layer-unlisted',
      comment: 'A src/main folder missing from the table imports no other src/main folder: give it a row first.',
      severity: 'error',
      from: { path: '^src/main/([^/]+)/', pathNot: `^src/main/${alternatives(Object.keys(LAYERS))}/` },
      to: { path: '^src/main/', pathNot: '^src/main/$1/' },
    },
    {
      name: 'main-file-outside-folders',
      comment: 'Every module of src/main lives in a folder of the table, so that its imports are checked.',
      severity: 'error',
      from: { path: '^src/main/[^/]+$' },
      to: {},
    },
    {
      name: 'no-cycle-across-main-folders',
      comment: 'A cycle of imports that leaves its src/main folder: two folders would each need the other.',
      severity: 'error',
      from: { path: '^src/main/([^/]+)/' },
      to: { circular: true, via: { pathNot: '^src/main/$1/' } },
    },
    {
      name: 'no-cycle-in-shared',
      comment: 'src/shared is loaded by both sides in any order: a cycle there makes a value undefined at load time.',
      severity: 'error',
      from: { path: '^src/shared/', pathNot: knownSharedCycles() },
      to: { circular: true },
    },
    {
      name: 'shared-stays-shared',
      comment: 'src/shared imports nothing outside itself (eslint checks the same file by file).',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'renderer-not-main',
      comment: 'The renderer talks to the API contract, never to src/main or the preload.',
      severity: 'error',
      from: { path: '^src/renderer/' },
      to: { path: '^src/(main|preload)/' },
    },
    {
      name: 'main-not-renderer',
      comment: 'The core and its hosts never import the UI: it reaches them as built files only.',
      severity: 'error',
      from: { path: '^src/main/' },
      to: { path: '^src/(renderer|preload)/' },
    },
  ],
  options: {
    // The rules are about src; packages are not walked at all.
    exclude: { path: '^node_modules/' },
    // Type-only imports are edges too: a folder that names another's types depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Resolve package subpaths (js-tiktoken/ranks/…) through their exports, as Node and esbuild do.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};

// Known debt below this line ----------------------------------------------------------------------
// Each entry is an exception the rules above allow only because it is listed here, with why.

/** Modules of src/shared in a cycle today, all within one folder of it: none at present. */
function knownSharedCycles() {
  return [];
}
