import { hash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';

/*
 * Token counts kept between runs: one binary file, `token-counts.bin`, in Palimpsest's cache folder.
 * An entry is keyed by a hash of the content cache's key (which is the encoding and the text, or the
 * encoding and the text's SHA-1), so a text counted once is never counted again, in any session,
 * by any command. It is a cache: deleting it loses nothing but time.
 *
 * Layout: the 8 bytes `PLMTOK01`, the entry count (uint32 LE), the CRC-32 of the entries (uint32
 * LE), then per entry 16 bytes of the key's SHA-1, the tokens and the estimated tokens (uint32 LE
 * each). The file is written whole to a temporary name and renamed over the old one (atomic on
 * POSIX and on one Windows volume), only when something was added. Bounded: at most `maxEntries`,
 * the ones looked up or added most recently kept. A file that cannot be read, is damaged or has
 * another layout is reported once and replaced — never fatal.
 */

export const STORE_FILE = 'token-counts.bin';
const MAGIC = 'PLMTOK01';
const HEADER = 16;
const DIGEST = 16;
const ENTRY = DIGEST + 8;
/** 24 bytes an entry: 12 MB at most. */
const DEFAULT_MAX_ENTRIES = 500_000;

/** The store's key of a content-cache key: 16 bytes of its SHA-1, as a binary string. */
const digestOf = (key: string): string => hash('sha1', key, 'binary').slice(0, DIGEST);

export class CountStore {
  /** Counts by digest, packed as the content cache packs them (tokens × 2^24 + estimated); oldest first. */
  private readonly entries = new Map<string, number>();
  private added = 0;
  /** What went wrong reading or writing it, in sentences for the user. */
  readonly problems: string[] = [];
  hits = 0;

  private constructor(
    readonly path: string,
    private readonly maxEntries: number,
  ) {}

  /** Reads the store at `path`. Never throws: a missing file is an empty store; a damaged one is reported and replaced on save. */
  static open(path: string, maxEntries = DEFAULT_MAX_ENTRIES): CountStore {
    const store = new CountStore(path, Math.max(1, maxEntries));
    let buf: Buffer;
    try {
      buf = readFileSync(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT')
        store.problems.push(`the token count cache ${path} could not be read (${code ?? String(e)}); counts are not reused`);
      return store;
    }
    const n = buf.length >= HEADER ? buf.readUInt32LE(8) : -1;
    if (buf.length < HEADER || buf.toString('latin1', 0, 8) !== MAGIC || buf.length !== HEADER + n * ENTRY) {
      store.problems.push(`the token count cache ${path} is not one this version writes, or is cut short; it is rebuilt`);
      store.added++;
      return store;
    }
    if (crc32(buf.subarray(HEADER)) !== buf.readUInt32LE(12)) {
      store.problems.push(`the token count cache ${path} is damaged; it is rebuilt`);
      store.added++;
      return store;
    }
    for (let off = HEADER; off < buf.length; off += ENTRY) {
      const tokens = buf.readUInt32LE(off + DIGEST);
      const estimated = buf.readUInt32LE(off + DIGEST + 4);
      store.entries.set(buf.toString('latin1', off, off + DIGEST), tokens * 0x1000000 + Math.min(estimated, 0xffffff));
    }
    return store;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The packed count stored for a content-cache key, if any. */
  get(key: string): number | undefined {
    const d = digestOf(key);
    const v = this.entries.get(d);
    if (v === undefined) return undefined;
    this.hits++;
    // Looked up now: it moves to the newest end, the last to go when the store is full.
    this.entries.delete(d);
    this.entries.set(d, v);
    return v;
  }

  /** Keeps a packed count for a content-cache key (see ContentCountCache). */
  set(key: string, packed: number): void {
    const d = digestOf(key);
    this.entries.delete(d);
    this.entries.set(d, packed);
    this.added++;
  }

  /**
   * Writes the store if anything was added since it was read: the newest `maxEntries` entries, to a
   * temporary file renamed over the old one. Never throws: a failure is reported in `problems`.
   */
  save(): void {
    if (this.added === 0) return;
    const skip = Math.max(0, this.entries.size - this.maxEntries);
    const n = this.entries.size - skip;
    const buf = Buffer.alloc(HEADER + n * ENTRY);
    buf.write(MAGIC, 0, 'latin1');
    buf.writeUInt32LE(n, 8);
    let off = HEADER;
    let i = 0;
    for (const [d, v] of this.entries) {
      if (i++ < skip) continue;
      const estimated = v % 0x1000000;
      buf.write(d, off, DIGEST, 'latin1');
      buf.writeUInt32LE(Math.min(0xffffffff, (v - estimated) / 0x1000000), off + DIGEST);
      buf.writeUInt32LE(estimated, off + DIGEST + 4);
      off += ENTRY;
    }
    buf.writeUInt32LE(crc32(buf.subarray(HEADER)), 12);
    const tmp = `${this.path}.${process.pid}.tmp`;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      writeFileSync(tmp, buf);
      renameSync(tmp, this.path);
      this.added = 0;
    } catch (e) {
      try {
        rmSync(tmp, { force: true });
      } catch {
        // Left behind: the next save writes the same name over it.
      }
      const code = (e as NodeJS.ErrnoException).code;
      this.problems.push(`the token count cache ${this.path} could not be written (${code ?? String(e)}); counts are not kept`);
    }
  }
}
