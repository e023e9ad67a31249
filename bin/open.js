// Runs dist/open.cjs — the CLI for the commands that open one session (scripts/build-cli.mjs) — as
// a vm.Script with a V8 code cache, so that a command does not compile again what the last run of
// it compiled (docs/performance.md, "Opening a real session: the commands"). An ES module cannot
// take a code cache on Node 20 (no module.enableCompileCache, no cachedData for import()).
//
// The cache is one file per command in the CLI's cache folder, `code-cache/open-COMMAND.v8`: a run
// of `validate` compiles other functions than one of `inspect --json`, and a cache written after a
// run holds the functions that run compiled. It is only a cache: a missing, damaged or foreign file
// (another build of the bundle, another Node) is ignored and written again after the run, and any
// error reading or writing it is ignored. Nothing of it is written where a harness keeps its
// sessions: the bundle's own check of the folder runs before a write.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';

// A cache file: this tag, the CRC-32 of the rest, the key's length and the key, then V8's data.
const TAG = Buffer.from('PLMV8C01');
const HEAD = TAG.length + 8;

/** The CLI's cache folder, found as src/main/discovery/cache-folder.ts's indexDir finds it (compared before a write). */
function cacheFolder(env) {
  const own = env.PALIMPSEST_CACHE_DIR;
  if (own !== undefined && own.trim() !== '') return resolve(own);
  const xdg = env.XDG_CACHE_HOME;
  if (xdg !== undefined && xdg.trim() !== '' && isAbsolute(xdg)) return join(xdg, 'palimpsest');
  return join(homedir(), '.cache', 'palimpsest');
}

/** V8's data from `path` when the file is whole and was written for `key`, else null. */
function readCache(path, key) {
  let buf;
  try {
    buf = readFileSync(path);
  } catch {
    return null;
  }
  if (buf.length < HEAD || !buf.subarray(0, TAG.length).equals(TAG)) return null;
  if (buf.readUInt32LE(TAG.length) !== crc32(buf.subarray(TAG.length + 4))) return null;
  const keyEnd = HEAD + buf.readUInt32LE(TAG.length + 4);
  if (keyEnd > buf.length || buf.toString('utf8', HEAD, keyEnd) !== key) return null;
  return buf.subarray(keyEnd);
}

/** Writes V8's `data` for `key` to `path` whole: a temporary file renamed over it. */
function writeCache(path, key, data) {
  const keyBytes = Buffer.from(key, 'utf8');
  const head = Buffer.alloc(HEAD);
  TAG.copy(head);
  head.writeUInt32LE(keyBytes.length, TAG.length + 4);
  const rest = Buffer.concat([head.subarray(TAG.length + 4), keyBytes, data]);
  head.writeUInt32LE(crc32(rest), TAG.length);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, Buffer.concat([head.subarray(0, TAG.length + 4), rest]));
    renameSync(tmp, path);
  } catch {
    rmSync(tmp, { force: true });
  }
}

/**
 * Runs `file` (dist/open.cjs) for `command`; false when there is no such file. With
 * PALIMPSEST_DEBUG_CODE_CACHE=1 the loader says on stderr what became of the cache (absent,
 * foreign, rejected by V8, accepted; written); PALIMPSEST_NO_CODE_CACHE=1 or `--no-cache` neither
 * reads nor writes it.
 */
export function runOpenBundle(file, command, args) {
  let source;
  let stat;
  try {
    source = readFileSync(file, 'utf8');
    stat = statSync(file);
  } catch {
    return false;
  }
  const useCache = process.env.PALIMPSEST_NO_CODE_CACHE !== '1' && !args.includes('--no-cache');
  const folder = cacheFolder(process.env);
  const path = join(folder, 'code-cache', `open-${command}.v8`);
  const key = [process.version, process.arch, stat.size, stat.mtimeMs].join(' ');
  const cachedData = useCache ? readCache(path, key) : null;
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const accepted = cachedData !== null && !script.cachedDataRejected;
  const debug = process.env.PALIMPSEST_DEBUG_CODE_CACHE === '1';
  const module = { exports: {} };
  if (useCache && !accepted)
    // After the command, so that the data holds the functions it compiled on the way.
    process.on('exit', () => {
      const m = module.exports;
      const ours = typeof m.indexDir === 'function' && m.indexDir() === folder && m.harnessFolderHolding(folder) === null;
      if (ours) writeCache(path, key, script.createCachedData());
      if (debug) process.stderr.write(`code cache: ${ours ? 'written' : 'not written'}\n`);
    });
  if (debug && useCache)
    process.stderr.write(`code cache: ${cachedData === null ? 'absent or foreign' : accepted ? 'accepted' : 'rejected'}\n`);
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  return true;
}
