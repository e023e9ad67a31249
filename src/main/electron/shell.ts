import { readFile, realpath } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, ipcMain, protocol, session, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { API_METHODS, ipcChannel } from '../../shared/api/contract';
import { dispatch } from '../api/handlers';
import type { KeyVault } from '../api/handlers-rerun-keys';
import type { DiscoverOptions } from '../discovery/discover';
import { createHostContext } from '../host/host-context';
import { contentType, resolveStaticFile, SECURITY_HEADERS } from '../host/static';
import { EndpointApprovals } from '../providers/endpoints';
import { confirmEndpoint, confirmPath, pickPaths, saveExport } from './dialogs';
import { appKeyVault } from './keys';

/**
 * The Electron shell: the only main-process module that imports `electron`. Everything it serves
 * comes from the same handlers as the web host; the window is locked down:
 * - contextIsolation, sandbox, no nodeIntegration, webSecurity; the preload exposes only the
 *   contract's methods;
 * - the UI is served from app://palimpsest/ (out/renderer) with the strict CSP;
 * - navigation, new windows, webviews and every permission request are denied;
 * - IPC answers only frames whose origin is app://palimpsest, and validates every payload;
 * - the window opens only the library's paths (src/main/library/library.ts): those of the command
 *   line, discovered, picked in a native dialog, or confirmed by the user in one.
 */

const SCHEME = 'app';
const APP_HOST = 'palimpsest';
export const APP_ORIGIN = `${SCHEME}://${APP_HOST}`;

export interface ShellOptions {
  /** Session files from the command line. */
  readonly paths: readonly string[];
  /** Captures joined to the one session file of `paths` (`--capture`). */
  readonly captures?: readonly string[];
  /** The built renderer. Default: out/renderer beside this bundle (out/main). */
  readonly rendererDir?: string;
  /** The built preload. Default: out/preload/index.cjs. */
  readonly preloadPath?: string;
  /** Discovery of this machine's sessions; false: none. Default: the harnesses' own folders. */
  readonly machine?: DiscoverOptions | false;
  /** Stored API keys. Default: the app's vault under userData (./keys.ts). */
  readonly keys?: KeyVault;
}

// Must run before the app is ready: app:// behaves like https (standard, secure origin).
protocol.registerSchemesAsPrivileged([
  { scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
]);

const defaultRendererDir = (): string => fileURLToPath(new URL('../renderer', import.meta.url));
const defaultPreloadPath = (): string => fileURLToPath(new URL('../preload/index.cjs', import.meta.url));

function fromApp(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const u = new URL(url);
    return u.protocol === `${SCHEME}:` && u.host === APP_HOST;
  } catch {
    return false;
  }
}

async function serveApp(rendererDir: string, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const headers = { ...SECURITY_HEADERS, 'Cache-Control': 'no-cache' };
  if (url.host !== APP_HOST || (request.method !== 'GET' && request.method !== 'HEAD')) {
    return new Response('Not found', { status: 404, headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' } });
  }
  const root = await realpath(rendererDir).catch(() => null);
  const file = root ? await resolveStaticFile(root, url.pathname) : null;
  if (!file) return new Response('Not found', { status: 404, headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' } });
  return new Response(await readFile(file), { status: 200, headers: { ...headers, 'Content-Type': contentType(file) } });
}

function lockDown(contents: WebContents): void {
  contents.on('will-navigate', (e) => e.preventDefault());
  contents.on('will-redirect', (e) => e.preventDefault());
  contents.on('will-attach-webview', (e) => e.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

function createWindow(preloadPath: string): BrowserWindow {
  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    show: false,
    title: 'Palimpsest',
    backgroundColor: '#fbfaf7',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      // No middle-click (auxclick) navigation: links never open windows (Electronegativity AUXCLICK_JS_CHECK).
      disableBlinkFeatures: 'Auxclick',
    },
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(`${APP_ORIGIN}/index.html`);
  return win;
}

export function startShell(options: ShellOptions): void {
  const rendererDir = options.rendererDir ?? defaultRendererDir();
  const preloadPath = options.preloadPath ?? defaultPreloadPath();
  app.enableSandbox();
  // API keys the user stores in the re-run panel: encrypted with safeStorage under userData (./keys.ts).
  const context = createHostContext({
    paths: options.paths,
    captures: options.captures ?? [],
    machine: options.machine,
    picker: pickPaths,
    confirm: confirmPath,
    saveExport,
    keys: options.keys ?? appKeyVault(),
    // A key goes to an endpoint other than its provider's only once the user said yes in a native dialog.
    endpoints: new EndpointApprovals([], confirmEndpoint),
  });

  app.on('web-contents-created', (_e, contents) => lockDown(contents));

  for (const method of API_METHODS) {
    ipcMain.handle(ipcChannel(method), async (event: IpcMainInvokeEvent, input: unknown) => {
      if (!fromApp(event.senderFrame?.url)) {
        return { ok: false, error: { code: 'TRANSPORT', message: `${method}: refused, the caller is not the Palimpsest UI.` } };
      }
      return dispatch((await context).handlers, method, input);
    });
  }

  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', () => void context.then((c) => c.dispose()));

  void app.whenReady().then(() => {
    const ses = session.defaultSession;
    ses.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
    ses.setPermissionCheckHandler(() => false);
    ses.setDevicePermissionHandler(() => false);
    protocol.handle(SCHEME, (request) => serveApp(rendererDir, request));
    createWindow(preloadPath);
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) createWindow(preloadPath);
    });
  });
}
