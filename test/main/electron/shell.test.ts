import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_METHODS, ipcChannel } from '../../../src/shared/api/contract';

// The Electron binary cannot be downloaded on the development machine: `electron` is mocked, and the
// shell is checked for what it asks Electron to do.
type Listener = (...args: unknown[]) => unknown;
const electron = vi.hoisted(() => ({
  schemes: [] as { scheme: string; privileges?: Record<string, boolean> }[],
  ipc: new Map<string, Listener>(),
  appEvents: new Map<string, Listener>(),
  windows: [] as { options: { webPreferences: Record<string, unknown> }; url: string | null }[],
  protocolHandler: null as ((req: Request) => Promise<Response>) | null,
  permissionRequest: null as Listener | null,
  permissionCheck: null as Listener | null,
  sandboxed: false,
  /** Paths the shell asked the user to confirm, and the answer the fake dialog gives (1: Cancel). */
  confirmed: [] as string[],
  answer: 1,
  picked: [] as string[],
  /** app.getPath('userData'), and the backend safeStorage reports (Linux). */
  userData: '',
  backend: 'gnome_libsecret',
}));

// A fake safeStorage that really transforms the text, so a key written in clear would show.
const xor = (b: Buffer): Buffer => Buffer.from([...b].map((x) => x ^ 0x5a));

vi.mock('electron', () => ({
  app: {
    enableSandbox: () => {
      electron.sandboxed = true;
    },
    on: (event: string, fn: Listener) => electron.appEvents.set(event, fn),
    whenReady: () => Promise.resolve(),
    quit: () => undefined,
    getPath: (name: string) => (name === 'userData' ? electron.userData : '/nonexistent'),
  },
  safeStorage: {
    isEncryptionAvailable: () => true,
    encryptString: (s: string) => xor(Buffer.from(s)),
    decryptString: (b: Buffer) => xor(b).toString(),
    getSelectedStorageBackend: () => electron.backend,
  },
  BrowserWindow: class {
    static getAllWindows() {
      return electron.windows;
    }
    static getFocusedWindow() {
      return null;
    }
    url: string | null = null;
    constructor(readonly options: { webPreferences: Record<string, unknown> }) {
      electron.windows.push(this);
    }
    once() {
      return this;
    }
    show() {}
    loadURL(url: string) {
      this.url = url;
      return Promise.resolve();
    }
  },
  ipcMain: { handle: (channel: string, fn: Listener) => electron.ipc.set(channel, fn) },
  dialog: {
    showMessageBox: (...args: unknown[]) => {
      const options = args.at(-1) as { detail: string };
      electron.confirmed.push(options.detail.split('\n')[0] ?? '');
      return Promise.resolve({ response: electron.answer });
    },
    showOpenDialog: () => Promise.resolve({ canceled: false, filePaths: electron.picked }),
  },
  protocol: {
    registerSchemesAsPrivileged: (s: typeof electron.schemes) => electron.schemes.push(...s),
    handle: (_scheme: string, fn: (req: Request) => Promise<Response>) => {
      electron.protocolHandler = fn;
    },
  },
  session: {
    defaultSession: {
      setPermissionRequestHandler: (fn: Listener) => {
        electron.permissionRequest = fn;
      },
      setPermissionCheckHandler: (fn: Listener) => {
        electron.permissionCheck = fn;
      },
      setDevicePermissionHandler: () => undefined,
    },
  },
}));

const SMALL = 'fixtures/palimpsest/api-small.jsonl';
const invoke = (method: string, url: string | null, input: unknown) =>
  electron.ipc.get(ipcChannel(method as never))?.({ senderFrame: url === null ? null : { url } }, input) as Promise<{
    ok: boolean;
    value?: unknown;
    error?: { code: string };
  }>;

describe('Electron shell (electron mocked)', () => {
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'palimpsest-shell-'));
    mkdirSync(join(dir, 'renderer'));
    writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html><title>Palimpsest</title>');
    writeFileSync(join(dir, 'secret.txt'), 'top secret');
    electron.userData = join(dir, 'userData');
    const { startShell } = await import('../../../src/main/electron/shell');
    startShell({ paths: [SMALL], rendererDir: join(dir, 'renderer'), preloadPath: '/preload.cjs', machine: false });
    await new Promise((ok) => setTimeout(ok, 10));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('registers app:// as a standard, secure scheme and loads the UI from it', () => {
    expect(electron.schemes).toEqual([
      expect.objectContaining({ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) }),
    ]);
    expect(electron.windows[0]?.url).toBe('app://palimpsest/index.html');
  });

  it('locks the window down', () => {
    expect(electron.sandboxed).toBe(true);
    expect(electron.windows[0]?.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      preload: '/preload.cjs',
      disableBlinkFeatures: 'Auxclick',
    });
  });

  it('denies navigation, new windows, webviews and every permission', () => {
    const handlers = new Map<string, Listener>();
    let openHandler: Listener | null = null;
    electron.appEvents.get('web-contents-created')?.(
      {},
      {
        on: (event: string, fn: Listener) => handlers.set(event, fn),
        setWindowOpenHandler: (fn: Listener) => {
          openHandler = fn;
        },
      },
    );
    for (const event of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      const e = { preventDefault: vi.fn() };
      handlers.get(event)?.(e);
      expect(e.preventDefault, event).toHaveBeenCalled();
    }
    expect((openHandler as Listener | null)?.({ url: 'https://example.com' })).toEqual({ action: 'deny' });
    const callback = vi.fn();
    electron.permissionRequest?.({}, 'media', callback);
    expect(callback).toHaveBeenCalledWith(false);
    expect(electron.permissionCheck?.({}, 'clipboard-read')).toBe(false);
  });

  it('handles exactly the contract methods over IPC, only for app://palimpsest frames', async () => {
    expect([...electron.ipc.keys()].sort()).toEqual(API_METHODS.map(ipcChannel).sort());
    expect(await invoke('initialSessions', 'app://palimpsest/index.html', {})).toEqual({ ok: true, value: { paths: [SMALL] } });
    for (const url of ['https://evil.example/', 'file:///etc/passwd', 'app://other/index.html', null]) {
      expect((await invoke('initialSessions', url, {})).error?.code, String(url)).toBe('TRANSPORT');
    }
    const opened = await invoke('openSession', 'app://palimpsest/', { path: SMALL });
    expect(opened.ok).toBe(true);
    expect((await invoke('openSession', 'app://palimpsest/', { path: '/etc/passwd' })).error?.code).toBe('FORBIDDEN_PATH');
    expect((await invoke('getView', 'app://palimpsest/', { index: 'x' })).error?.code).toBe('BAD_INPUT');
  });

  it('opens another path only when the user confirms it in a native dialog, or picked it', async () => {
    const other = 'fixtures/palimpsest/basic.jsonl';
    electron.confirmed.length = 0;
    electron.answer = 1;
    expect((await invoke('openSession', 'app://palimpsest/', { path: other })).error?.code).toBe('FORBIDDEN_PATH');
    expect(electron.confirmed).toEqual([other]);
    // A path that does not exist is refused without asking.
    expect((await invoke('openSession', 'app://palimpsest/', { path: '/no/such/session.jsonl' })).error?.code).toBe('FORBIDDEN_PATH');
    expect(electron.confirmed).toEqual([other]);
    electron.answer = 0;
    expect((await invoke('openSession', 'app://palimpsest/', { path: other })).ok).toBe(true);

    const picked = 'fixtures/palimpsest/branches.jsonl';
    electron.picked = [picked];
    expect(await invoke('pickPaths', 'app://palimpsest/', { kind: 'files' })).toEqual({
      ok: true,
      value: { kind: 'files', paths: [picked] },
    });
    electron.answer = 1;
    expect((await invoke('openSession', 'app://palimpsest/', { path: picked })).ok).toBe(true);
    expect(electron.confirmed).toHaveLength(2);
  });

  it('serves the renderer on app:// with the CSP, and nothing outside it', async () => {
    const serve = electron.protocolHandler;
    expect(serve).not.toBeNull();
    const page = await serve!(new Request('app://palimpsest/index.html'));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await page.text()).toContain('<title>Palimpsest</title>');
    for (const url of [
      'app://palimpsest/../secret.txt',
      'app://palimpsest/%2e%2e/secret.txt',
      'app://other/index.html',
      'app://palimpsest/nope.js',
    ]) {
      const r = await serve!(new Request(url));
      expect(r.status, url).toBe(404);
      expect(await r.text()).not.toContain('top secret');
    }
  });

  it("stores API keys encrypted with safeStorage under userData, and refuses Electron's plain-text backend", async () => {
    const key = 'Pal1mpsest-shell-key-0123456789-LAST';
    const file = join(dir, 'userData', 'provider-keys.json');
    const status = (await invoke('providerKeys', 'app://palimpsest/', {})) as { ok: boolean; value: { store: unknown } };
    expect(status.value.store).toEqual({ available: true, location: file, message: null });
    const set = (await invoke('setProviderKey', 'app://palimpsest/', { provider: 'gemini', key })) as { ok: boolean; value: unknown };
    expect(set).toEqual({
      ok: true,
      value: {
        status: { provider: 'gemini', env: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'], set: true, source: 'stored', last4: 'LAST' },
        note: null,
      },
    });
    expect(readFileSync(file, 'utf8')).not.toContain(key.slice(0, 12));
    // Another origin cannot store (or probe) keys.
    expect((await invoke('setProviderKey', 'https://evil.example/', { provider: 'gemini', key })).error?.code).toBe('TRANSPORT');

    electron.backend = 'basic_text';
    const refused = (await invoke('setProviderKey', 'app://palimpsest/', { provider: 'anthropic', key })) as {
      ok: boolean;
      error: { code: string; message: string };
    };
    expect(refused.error.code).toBe('NOT_AVAILABLE');
    expect(refused.error.message).toMatch(/plain text/);
    expect(readFileSync(file, 'utf8')).not.toContain('anthropic');
    // Forgetting a key needs no encryption.
    expect(await invoke('removeProviderKey', 'app://palimpsest/', { provider: 'gemini' })).toMatchObject({
      ok: true,
      value: { removed: true },
    });
    electron.backend = 'gnome_libsecret';
    expect(existsSync(file)).toBe(true);
  });
});
