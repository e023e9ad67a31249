import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openReadOnly } from '../dialects/opencode/binding';
import { filesUnder } from './client-env';

/*
 * An OpenCode run's records for the compatibility facts (compat.ts), as the lines of a log: the
 * database's messages and parts (copied with its WAL into a private folder first: a saved run
 * keeps its `-wal`), or the storage tree's message and part files. Each message is followed by
 * its parts, as OpenCode reads them; a line's kind is `message/<role>` or `part/<type>`.
 */

export interface RecordLine {
  readonly kind: string;
  readonly value: Record<string, unknown>;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parse(text: unknown): Record<string, unknown> | null {
  if (typeof text !== 'string') return null;
  try {
    const v: unknown = JSON.parse(text);
    return isObj(v) ? v : null;
  } catch {
    return null;
  }
}

const kindOf = (prefix: 'message' | 'part', v: Record<string, unknown>): string =>
  `${prefix}/${typeof (prefix === 'message' ? v.role : v.type) === 'string' ? String(prefix === 'message' ? v.role : v.type) : '?'}`;

function fromDatabase(db: string): { lines: RecordLine[]; bad: number } {
  const dir = mkdtempSync(join(tmpdir(), 'palimpsest-compat-'));
  try {
    const copy = join(dir, 'opencode.db');
    copyFileSync(db, copy);
    if (existsSync(`${db}-wal`)) copyFileSync(`${db}-wal`, `${copy}-wal`);
    const conn = openReadOnly(copy);
    try {
      const parts = new Map<string, unknown[]>();
      for (const p of conn.all('select message_id, data from part order by message_id, id')) {
        const key = String(p.message_id);
        parts.set(key, [...(parts.get(key) ?? []), p.data]);
      }
      const lines: RecordLine[] = [];
      let bad = 0;
      for (const m of conn.all('select id, data from message order by time_created, id')) {
        for (const [prefix, raw] of [['message', m.data] as const, ...(parts.get(String(m.id)) ?? []).map((d) => ['part', d] as const)]) {
          const v = parse(raw);
          if (v) lines.push({ kind: kindOf(prefix, v), value: v });
          else bad++;
        }
      }
      return { lines, bad };
    } finally {
      conn.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function fromTree(storage: string): { lines: RecordLine[]; bad: number } {
  const lines: RecordLine[] = [];
  let bad = 0;
  for (const m of filesUnder(join(storage, 'message'), '.json')) {
    const v = parse(readFileSync(m, 'utf8'));
    if (!v) {
      bad++;
      continue;
    }
    lines.push({ kind: kindOf('message', v), value: v });
    const id = typeof v.id === 'string' ? v.id : '';
    for (const p of id === '' ? [] : filesUnder(join(storage, 'part', id), '.json')) {
      const pv = parse(readFileSync(p, 'utf8'));
      if (pv) lines.push({ kind: kindOf('part', pv), value: pv });
      else bad++;
    }
  }
  return { lines, bad };
}

/** The records of a saved OpenCode run (`logs`: its files relative to `runDir`, as run.json lists them). */
export function openCodeRecords(runDir: string, logs: readonly string[]): { lines: RecordLine[]; bad: number } {
  if (logs.includes('opencode.db')) return fromDatabase(join(runDir, 'opencode.db'));
  if (logs.some((l) => l.startsWith('storage/'))) return fromTree(join(runDir, 'storage'));
  return { lines: [], bad: 0 };
}
