import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { appendLine } from '../files/append-line';
import { dataDir } from '../files/data-dir';
import { openRegular, readRegularFile } from '../files/open-regular';
import { RunRecord, type SourceIdentity } from '../../shared/rerun/record';

/*
 * Where re-run results live, and how they are written: appended, one JSON line per run, never
 * rewritten. The results file is NOT put next to the session: harness folders are scanned by the
 * harness itself and by other tools (a `.jsonl` under ~/.claude/projects would be taken for a
 * session), and may be read-only. Default: `$PALIMPSEST_DATA_DIR`, else `$XDG_DATA_HOME/palimpsest`,
 * else `~/.local/share/palimpsest`, then `runs/<session file name>.<hash of its real path>.runs.jsonl`.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** The default results file of a session (by its real path, so two links to one file share runs). */
export async function defaultRunsFile(sessionPath: string, env: Env = process.env): Promise<string> {
  const real = await realpath(sessionPath);
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 12);
  return join(dataDir(env), 'runs', `${basename(real)}.${hash}.runs.jsonl`);
}

const EDGE = 64 * 1024;

/** Size + sha256 of size, first and last 64 KiB. Reads at most 128 KiB whatever the file's size. */
export async function sourceIdentity(sessionPath: string): Promise<SourceIdentity> {
  const real = await realpath(sessionPath);
  const fh = await openRegular(real);
  try {
    // The size of what was opened (the session may have been replaced since realpath).
    const st = await fh.stat();
    const h = createHash('sha256').update(String(st.size));
    const head = Buffer.alloc(Math.min(EDGE, st.size));
    await fh.read(head, 0, head.length, 0);
    h.update(head);
    if (st.size > EDGE) {
      const tail = Buffer.alloc(Math.min(EDGE, st.size - EDGE));
      await fh.read(tail, 0, tail.length, st.size - tail.length);
      h.update(tail);
    }
    return { path: real, size: st.size, fingerprint: h.digest('hex').slice(0, 32) };
  } finally {
    await fh.close();
  }
}

/** Append one run. Refuses to write to the session file itself (the source is read-only). */
export async function appendRun(file: string, record: RunRecord): Promise<void> {
  if (file === record.source.path) throw new Error(`Refusing to write re-run results into the session file ${file}.`);
  await appendLine(file, JSON.stringify(record));
}

export interface RunsRead {
  readonly runs: RunRecord[];
  /** Lines that are not valid run records: reported with their line number, never fatal. */
  readonly problems: { readonly line: number; readonly message: string }[];
}

/** Every run in a results file (missing file: none); callers flag runs whose source changed since. */
export async function readRuns(file: string): Promise<RunsRead> {
  let text: string;
  try {
    text = await readRegularFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { runs: [], problems: [] };
    throw err;
  }
  const runs: RunRecord[] = [];
  const problems: { line: number; message: string }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (err) {
      problems.push({ line: i + 1, message: `not JSON: ${(err as Error).message}` });
      continue;
    }
    const r = RunRecord.safeParse(json);
    if (!r.success) {
      problems.push({
        line: i + 1,
        message: `not a run record: ${r.error.issues[0]?.path.join('.') ?? ''} ${r.error.issues[0]?.message ?? ''}`,
      });
      continue;
    }
    runs.push(r.data);
  }
  return { runs, problems };
}
