import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createHandlers, type HandlerTable } from '../api/handlers';
import type { KeyVault } from '../api/handlers-rerun-keys';
import type { SaveExport } from '../api/handlers-export';
import { SessionRegistry } from '../api/sessions';
import type { FirstViewOptions } from '../api/first-view';
import type { DiscoverOptions } from '../discovery/discover';
import type { EndpointApprovals } from '../providers/endpoints';
import { kindOf, NotRegularFile, whyUnreadable } from '../files/open-regular';
import { Library, type Confirm, type Picker } from '../library/library';
import { indexDir } from '../discovery/cache-folder';

/**
 * What every host (the web host, the Electron shell, the end-to-end harness) builds from its
 * command line: the library (which is also the path policy), the session registry and the
 * handlers. The paths are sorted into session files, which the UI opens, and folders, which the
 * library lists.
 */

export interface HostOptions {
  /** Paths from the command line: session files and folders. */
  readonly paths: readonly string[];
  /** Captures to join to the one session file of `paths` whenever it opens (`serve FILE --capture C`). */
  readonly captures?: readonly string[];
  /** Discovery of this machine's sessions; false: none. Default: the harnesses' own folders. */
  readonly machine?: DiscoverOptions | false;
  readonly picker?: Picker;
  readonly confirm?: Confirm;
  /**
   * Stored API keys for re-runs: the Electron shell's, encrypted with safeStorage. The web host
   * has none (keys come from environment variables only, and setProviderKey says so): a key typed
   * into a browser tab would otherwise be written on whatever machine serves it.
   */
  readonly keys?: KeyVault | null;
  /**
   * Where re-runs and evals may send a key besides the providers' own endpoints: approved on the
   * command line (`serve --allow-endpoint`) or in the desktop app's dialog. Default: nowhere else.
   */
  readonly endpoints?: EndpointApprovals;
  /** Bytes of memory the open sessions may take together (SessionRegistryOptions.memoryBudget). */
  readonly memoryBudget?: number;
  /** The desktop app's save dialog for exports; the web host has none and returns the document. */
  readonly saveExport?: SaveExport;
  /** Which files open with a first view (SessionRegistryOptions.firstView); tests lower the cut. */
  readonly firstView?: FirstViewOptions | null;
  /**
   * Begin reading the session files at once, while the page or window loads; the UI's open takes
   * what was read (HandlerContext.warmOpens). Default true; false times an open from the UI's ask.
   */
  readonly warm?: boolean;
}

export interface HostContext {
  readonly handlers: HandlerTable;
  readonly registry: SessionRegistry;
  readonly library: Library;
  /** Session files (the UI opens them); a Rind session folder counts as a file. */
  readonly files: readonly string[];
  readonly folders: readonly string[];
  /** Paths that do not exist. */
  readonly missing: readonly string[];
  /** Paths that exist but cannot be sessions nor folders, each with why (a FIFO, a loop of links). */
  readonly unusable: readonly string[];
  /** Stops the jobs the handlers started, then closes every open session. */
  dispose(): void;
}

/** A folder that is one session (Rind's: it holds messages.jsonl), rather than a folder of sessions. */
async function isSessionFolder(path: string): Promise<boolean> {
  const messages = await stat(join(path, 'messages.jsonl')).catch(() => null);
  return messages?.isFile() ?? false;
}

export async function createHostContext(options: HostOptions): Promise<HostContext> {
  const files: string[] = [];
  const folders: string[] = [];
  const missing: string[] = [];
  const unusable: string[] = [];
  for (const p of options.paths) {
    const info = await stat(p).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === 'ELOOP') unusable.push(whyUnreadable(p, err));
      else missing.push(p);
      return null;
    });
    if (!info) continue;
    const kind = kindOf(info);
    if (kind !== null && kind !== 'a directory') unusable.push(new NotRegularFile(p, kind).message);
    else if (info.isDirectory() && !(await isSessionFolder(p))) folders.push(p);
    else files.push(p);
  }
  const captures = options.captures ?? [];
  if (captures.length > 0) {
    if (files.length !== 1 || folders.length > 0) unusable.push('--capture joins one session: give exactly one session file');
    for (const c of captures) {
      const info = await stat(c).catch(() => null);
      if (!info) missing.push(c);
      else if (!info.isFile()) unusable.push(new NotRegularFile(c, kindOf(info) ?? 'a directory').message);
    }
  }
  // The captures are read like a session, so the library lets them in as it does the files.
  const library = new Library({
    files: [...files, ...captures],
    folders,
    machine: options.machine,
    picker: options.picker,
    confirm: options.confirm,
  });
  const registry = new SessionRegistry({
    allow: library,
    memoryBudget: options.memoryBudget,
    ...(options.firstView !== undefined ? { firstView: options.firstView } : {}),
  });
  const initialCaptures = captures.length > 0 && files[0] !== undefined ? { path: files[0], captures } : undefined;
  const handlers = createHandlers({
    registry,
    initialPaths: files,
    warmOpens: options.warm ?? true,
    ...(initialCaptures ? { initialCaptures } : {}),
    library,
    rerun: { keys: options.keys ?? null, ...(options.endpoints ? { endpoints: options.endpoints } : {}) },
    countCacheDir: indexDir(),
    ...(options.saveExport ? { saveExport: options.saveExport } : {}),
  });
  return {
    handlers,
    registry,
    library,
    files,
    folders,
    missing,
    unusable,
    dispose: () => {
      handlers[Symbol.dispose]();
      registry.dispose();
    },
  };
}
