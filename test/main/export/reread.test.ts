import { copyFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../../src/shared/redact/redactor';
import { exportSession } from '../../../src/main/api/export/export';
import { StringSink } from '../../../src/main/api/export/sink';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession } from '../../../src/main/session/load';

/* A session file that changes after it was loaded: the export still completes, and says what it could not re-read. */

describe('export of a session whose file was rewritten after loading', () => {
  it('writes the previews held in memory, says so, and does not fail', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'palimpsest-export-reread-'));
    const path = join(dir, 'session.jsonl');
    await copyFile('fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl', path);
    const session = await loadSession(path, {});
    try {
      const inspector = new SessionInspector(session);
      await writeFile(path, 'gone\n');
      const sink = new StringSink();
      await exportSession(inspector, path, { kind: 'html' }, sink, new Redactor({ builtIn: true, patterns: [] }));
      const html = sink.text();
      expect(html).toContain('The source could not be re-read: only the preview held in memory is shown');
      expect(html.endsWith('</html>\n')).toBe(true);
    } finally {
      await session.dispose();
    }
  });
});
