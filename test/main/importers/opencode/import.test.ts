import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { detectFormat } from '../../../../src/main/importers/registry';
import { sniffOpenCode } from '../../../../src/main/importers/opencode/sniff';
import { loadSession, UnreadableSessionError } from '../../../../src/main/session/load';
import { SessionInspector } from '../../../../src/main/session/inspector';

const FIX = join(__dirname, '../../../../fixtures/opencode');
const opened: SessionInspector[] = [];
afterEach(async () => {
  for (const i of opened.splice(0)) await i.session.dispose();
});

async function open(path: string, session?: string): Promise<SessionInspector> {
  const i = new SessionInspector(await loadSession(path, { session }));
  opened.push(i);
  return i;
}

const ids = (i: SessionInspector, n: number): string[] => (i.view(n)?.items ?? []).map((x) => x.id);

describe.each([
  ['the database', join(FIX, 'opencode.db')],
  ['the 1.0.x storage tree', join(FIX, 'storage-1.0')],
  ['the 0.5.x storage tree', join(FIX, 'storage-0.5')],
])('OpenCode sessions from %s', (_name, path) => {
  it('asks which session when there are several, and names them', async () => {
    await expect(loadSession(path)).rejects.toThrow(/holds 2 OpenCode sessions: pass --session ID with one of ses_basic .*ses_compact/);
    await expect(loadSession(path, { session: 'ses_nope' })).rejects.toBeInstanceOf(UnreadableSessionError);
  });

  it('maps steps to requests with their reported usage, and a pruned output to the cleared text', async () => {
    const i = await open(path, 'ses_basic');
    expect(i.session.format).toBe('opencode');
    const requests = i.replay().requests;
    expect(requests).toHaveLength(4);
    expect(i.view(1)?.items.map((x) => x.role)).toEqual(['user', 'assistant', 'tool']);
    expect(ids(i, 2)).toEqual(['msg_b001', 'msg_b002#1', 'prt_basic_004:result', 'msg_b002#2', 'msg_b003']);
    expect(requests.map((r) => r.usage?.input)).toEqual([800, 900, 300, 350]);
    // The read output was pruned before the third request: from there the model sees the marker.
    const tool = (n: number): string => JSON.stringify(i.view(n)?.items.find((x) => x.id === 'prt_basic_004:result'));
    expect(tool(1)).not.toContain('[Old tool result content cleared]');
    expect(tool(2)).toContain('[Old tool result content cleared]');
    // Still a result of its call, as OpenCode sends it: only the content is the marker.
    const blocks = (n: number) => i.view(n)?.items.find((x) => x.id === 'prt_basic_004:result')?.blocks;
    const first = blocks(1)?.[0];
    const callId = first?.type === 'tool_result' ? first.callId : null;
    expect(callId).toMatch(/\S/);
    expect(blocks(2)).toEqual([{ type: 'tool_result', callId, content: [{ type: 'text', text: '[Old tool result content cleared]' }] }]);
    const full = await i.fullView(1);
    expect(JSON.stringify(full)).toContain('line 39: ');
  });

  it('rebuilds the view after a compaction from the summary and the kept tail, and keeps a failed one out', async () => {
    const i = await open(path, 'ses_compact');
    const s = i.replay();
    expect(s.requests).toHaveLength(5);
    expect(ids(i, 2)).toEqual(['msg_c001', 'msg_c002#1', 'msg_c003', 'msg_c004#1', 'msg_c005']);
    expect(ids(i, 3)).toEqual(['msg_c005:question', 'msg_c005:summary', 'msg_c003', 'msg_c004#1', 'msg_c007']);
    expect(ids(i, 4)).toEqual([...ids(i, 3), 'msg_c008#1', 'msg_c009']);
    expect(i.diagnostics().filter((d) => d.severity !== 'info')).toEqual([]);
  });
});

describe('OpenCode records', () => {
  it('reports a row whose data is not JSON with its table and id, and loads the rest', async () => {
    const i = await open(join(FIX, 'opencode.db'), 'ses_basic');
    const bad = i.session.diagnostics.filter((d) => d.rule === 'OPENCODE_BAD_ROW');
    expect(bad).toHaveLength(1);
    expect(bad[0]?.message).toMatch(/^part prt_basic_bad: its data is not JSON/);
  });

  it('claims only its own copies', () => {
    expect(sniffOpenCode([{ opencode: 'session', info: {} }, { opencode: 'message' }])).toBeGreaterThan(0.9);
    expect(sniffOpenCode([{ type: 'user', message: {} }])).toBe(0);
    expect(detectFormat([{ opencode: 'session', info: {} }], 'x.jsonl')?.importer.id).toBe('opencode');
  });
});

describe('OpenCode folders given to inspect and validate', () => {
  it('are one session source, not folders to search for session files', async () => {
    const { claimedDirectory } = await import('../../../../src/main/session/targets');
    expect(await claimedDirectory(join(FIX, 'storage-1.0'))).toBe('session');
    expect(await claimedDirectory(FIX)).toBe('session');
    expect(await claimedDirectory(join(FIX, 'storage-1.0', 'storage', 'message'))).toBeNull();
  });
});

describe('OpenCode sniffing', () => {
  it('claims no line file of another format among the fixtures', async () => {
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const root = join(__dirname, '../../../../fixtures');
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const n of readdirSync(dir)) {
        const p = join(dir, n);
        if (statSync(p).isDirectory()) walk(p);
        else if (n.endsWith('.jsonl')) files.push(p);
      }
    };
    walk(root);
    expect(files.length).toBeGreaterThan(50);
    for (const f of files) {
      const first = readFileSync(f, 'utf8')
        .split('\n')
        .slice(0, 16)
        .flatMap((l) => {
          try {
            const v: unknown = JSON.parse(l);
            return typeof v === 'object' && v !== null && !Array.isArray(v) ? [v as Record<string, unknown>] : [];
          } catch {
            return [];
          }
        });
      expect([f, sniffOpenCode(first)]).toEqual([f, 0]);
    }
  });
});
