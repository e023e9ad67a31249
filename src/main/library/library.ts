import { resolve, sep } from 'node:path';
import type { Discovery } from '../../shared/api/library-contract';
import { ApiFailure } from '../access/failure';
import type { PathPolicy } from '../access/path-policy';
import { canonicalPath as canonical } from '../files/canonical';
import { CatalogHealthSource } from '../catalog/health-source';
import { catalogDir } from '../catalog/update';
import type { DiscoverOptions, Discovery as MachineDiscovery } from '../discovery/discover';
import { scanInParallel } from '../discovery/parallel';
import { listSessions } from '../catalog/list';
import { listing, type FolderListing } from './listing';
import { scanFolder } from './folder-scan';
import { searchLibrary, type LibrarySearchInput, type LibrarySearchResult } from './library-search';

/**
 * The library of one host: the sessions it was started with, the folders it was given or the user
 * picked, and the sessions discovery finds in each harness's own folders. It is also the host's
 * PathPolicy (src/main/access/path-policy.ts): a host opens only
 *   - the files it was started with, or that the user picked in a native dialog;
 *   - files under the folders it was started with, or that the user picked;
 *   - sessions discovery listed (a harness's session, found where that harness keeps them);
 *   - in Electron, a path the user confirmed in a native dialog (typed, or dropped on the window).
 * Paths are compared after resolving symbolic links. Anything else is FORBIDDEN_PATH: a web host
 * reached through a tunnel must not become a reader of every file on the machine.
 */

export type PickKind = 'files' | 'folder';
/** A native open dialog (Electron); resolves to the chosen paths, empty when cancelled. */
export type Picker = (kind: PickKind) => Promise<readonly string[]>;
/** A native question to the user: may this path, not otherwise allowed, be opened? */
export type Confirm = (path: string) => Promise<boolean>;

export interface LibraryOptions {
  /** Session files the host was started with. */
  readonly files?: readonly string[];
  /** Folders the host was started with. */
  readonly folders?: readonly string[];
  /** Discovery in the harnesses' own folders (src/main/discovery); false: none. Default: this machine's. */
  readonly machine?: DiscoverOptions | false;
  readonly picker?: Picker;
  readonly confirm?: Confirm;
}

interface Folder {
  readonly path: string;
  readonly source: string;
}

export class Library implements PathPolicy {
  private readonly files = new Set<string>();
  private readonly folders: Folder[] = [];
  private readonly folderRoots = new Set<string>();
  private discovered = new Set<string>();
  private current: Promise<Discovery> | null = null;
  private readonly ready: Promise<void>;

  constructor(private readonly options: LibraryOptions = {}) {
    this.ready = (async () => {
      for (const f of options.files ?? []) this.files.add(await canonical(f));
      for (const d of options.folders ?? []) await this.addFolder(d, 'argument');
    })();
  }

  /**
   * The health report's rows of the machine's sessions, from the session index (what search keeps):
   * null with no source when this host does not look for them, or with why not when the index folder
   * may not be written (then they are loaded instead).
   */
  healthIndex(): { readonly source: CatalogHealthSource | null; readonly problem: string | null } {
    if (this.options.machine === false) return { source: null, problem: null };
    const machine = this.options.machine ?? {};
    const discover = { ...machine, scanMany: machine.scanMany ?? scanInParallel };
    const where = catalogDir(discover);
    if (where.dir === null) return { source: null, problem: where.problem };
    return { source: new CatalogHealthSource({ discover, dir: where.dir }), problem: null };
  }

  /** True when this host can show a native dialog. */
  get canPick(): boolean {
    return this.options.picker !== undefined;
  }

  private async addFolder(path: string, source: string): Promise<void> {
    const real = await canonical(path);
    if (this.folderRoots.has(real)) return;
    this.folderRoots.add(real);
    this.folders.push({ path: resolve(path), source });
  }

  private async known(path: string): Promise<boolean> {
    await this.ready;
    const real = await canonical(path);
    if (this.files.has(real) || this.discovered.has(real)) return true;
    for (const root of this.folderRoots) if (real.startsWith(root + sep)) return true;
    return false;
  }

  async allows(path: string): Promise<boolean> {
    if (await this.known(path)) return true;
    // Sessions discovery lists are allowed: discover once before saying no (a recent session
    // opened before the library has been listed in this run).
    if (this.current === null) {
      await this.discover(false);
      if (await this.known(path)) return true;
    }
    if (this.options.confirm && (await this.options.confirm(path))) {
      this.files.add(await canonical(path));
      return true;
    }
    return false;
  }

  refusal(path: string): string {
    return (
      `${path} is not a session this host may open: open one of the sessions it was started with or discovered, ` +
      `a file under a folder it was started with${this.canPick ? ', or pick it with Open' : ` (start it with that folder: palimpsest serve <folder>)`}.`
    );
  }

  /** The library's listing; the last one unless `refresh`. Never rejects: problems are in the listing. */
  discover(refresh: boolean): Promise<Discovery> {
    if (this.current === null || refresh) {
      const previous = this.current;
      this.current = (async () => {
        await previous?.catch(() => null);
        return this.list();
      })();
    }
    return this.current;
  }

  private async list(): Promise<Discovery> {
    await this.ready;
    let machine: MachineDiscovery | null = null;
    const failures: string[] = [];
    if (this.options.machine !== false) {
      try {
        machine = await listSessions(this.options.machine ?? {});
      } catch (err: unknown) {
        // listSessions reports what it cannot read; a throw is a bug, said once and not fatal to the folders.
        failures.push(`Discovery of this machine's sessions failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const folders: FolderListing[] = [];
    for (const f of this.folders) folders.push({ ...f, scan: await scanFolder(f.path) });
    const out = listing(machine, folders, new Date());
    out.problems.unshift(...failures);
    const allowed = new Set<string>();
    for (const s of out.sessions) if (s.origin === 'machine') allowed.add(await canonical(s.path));
    this.discovered = allowed;
    return out;
  }

  /**
   * Full-text search over the sessions discovery finds on this machine (./library-search.ts); the
   * sessions of its hits may be opened from then on, as discovered sessions may.
   */
  async search(input: LibrarySearchInput): Promise<LibrarySearchResult> {
    if (this.options.machine === false)
      throw new ApiFailure('NOT_AVAILABLE', "This host does not look for this machine's sessions, so it has none to search.");
    const r = await searchLibrary(this.options.machine ?? {}, input);
    for (const h of r.hits) this.discovered.add(await canonical(h.path));
    return r;
  }

  /** A native dialog; what the user picks may be opened from then on. */
  async pick(kind: PickKind): Promise<readonly string[]> {
    if (!this.options.picker) {
      throw new ApiFailure(
        'NOT_AVAILABLE',
        'A browser page cannot open a file dialog on the machine Palimpsest runs on: type the path of a session file in the path box instead.',
      );
    }
    await this.ready;
    const paths = await this.options.picker(kind);
    for (const p of paths) {
      if (kind === 'folder') await this.addFolder(p, 'picked');
      else this.files.add(await canonical(p));
    }
    return paths;
  }
}
