import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverCaptures, headNamesSession, namedCapturePath } from '../../../src/main/capture/discover';

/* Finding a session's captures without being told: by name, or by the session id its exchanges carry. */

const CAPTURE = 'fixtures/captures/fidelity/claude-code-2.1.332.compact-http-500.capture.jsonl';
const ID = 'd7672e9b-78eb-4ae0-bede-e6cfd3bf86dc';
const OTHER = '00000000-1111-2222-3333-444444444444';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'palimpsest-discover-'));
  dirs.push(d);
  return d;
}

describe('capture discovery', () => {
  it('finds a capture in the session folder whose exchanges carry the session id, and not one of another session', async () => {
    const d = tmp();
    const session = join(d, `${ID}.jsonl`);
    writeFileSync(session, '');
    copyFileSync(CAPTURE, join(d, 'a.capture.jsonl'));
    writeFileSync(join(d, 'b.capture.jsonl'), readFileSync(CAPTURE, 'utf8').replaceAll(ID, OTHER));
    writeFileSync(join(d, 'c.jsonl'), readFileSync(CAPTURE));
    expect(await discoverCaptures(session, ID, { dataDir: null })).toEqual([join(d, 'a.capture.jsonl')]);
    expect(await discoverCaptures(session, OTHER, { dataDir: null })).toEqual([join(d, 'b.capture.jsonl')]);
  });

  it('takes the capture named for the session file whatever it holds, and searches the data dir', async () => {
    const d = tmp();
    const data = tmp();
    const session = join(d, 's.jsonl');
    writeFileSync(session, '');
    writeFileSync(`${session}.capture.jsonl`, '{"type":"capture"}\n');
    mkdirSync(join(data, 'captures'));
    copyFileSync(CAPTURE, join(data, 'captures', 'x.capture.jsonl'));
    expect(namedCapturePath(session)).toBe(`${session}.capture.jsonl`);
    expect(await discoverCaptures(session, ID, { dataDir: data })).toEqual([
      `${session}.capture.jsonl`,
      join(data, 'captures', 'x.capture.jsonl'),
    ]);
    // Without a session id only the named one can be known to be the session's.
    expect(await discoverCaptures(session, null, { dataDir: data })).toEqual([`${session}.capture.jsonl`]);
  });

  it('reads at most maxFiles files and headBytes of each', async () => {
    const d = tmp();
    const session = join(d, 's.jsonl');
    writeFileSync(session, '');
    for (const n of ['a', 'b', 'c']) copyFileSync(CAPTURE, join(d, `${n}.capture.jsonl`));
    expect(await discoverCaptures(session, ID, { dataDir: null, maxFiles: 2 })).toEqual([
      join(d, 'a.capture.jsonl'),
      join(d, 'b.capture.jsonl'),
    ]);
    // The id is in the first exchange's headers: a head that stops before them finds nothing.
    expect(await discoverCaptures(session, ID, { dataDir: null, headBytes: 100 })).toEqual([]);
  });

  it('reads whole lines exactly, and a line cut by the bound by the id text in it', () => {
    const line = (headers: [string, string][], body: unknown) =>
      JSON.stringify({ type: 'exchange', request: { headers, body: { encoding: 'utf8', data: JSON.stringify(body) } } });
    const header = line([['x-claude-code-session-id', ID]], {});
    expect(headNamesSession(`{"type":"capture"}\n${header}\n`, ID, false)).toBe(true);
    // Codex: the body's prompt_cache_key.
    expect(headNamesSession(`${line([], { prompt_cache_key: ID })}\n`, ID, false)).toBe(true);
    // Claude Code's metadata.user_id, older form.
    expect(headNamesSession(`${line([], { metadata: { user_id: `user_abc_account__session_${ID}` } })}\n`, ID, false)).toBe(true);
    // The id in a message's text is not a session id.
    expect(headNamesSession(`${line([], { messages: [{ role: 'user', content: ID }] })}\n`, ID, false)).toBe(false);
    // Broken lines are skipped, never fatal.
    expect(headNamesSession(`not json\n{"type":"exchange","request":7}\n${header}\n`, ID, false)).toBe(true);
    expect(headNamesSession(header.slice(0, header.length - 5), ID, true)).toBe(true);
    expect(headNamesSession(header.slice(0, 40), ID, true)).toBe(false);
  });

  it('a missing folder or file is no capture, and no error', async () => {
    expect(await discoverCaptures('/nonexistent/palimpsest/s.jsonl', ID, { dataDir: '/nonexistent/palimpsest-data' })).toEqual([]);
  });
});
