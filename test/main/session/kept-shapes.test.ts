import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JsonlPipeline } from '../../../src/main/reader/pipeline';
import { keptShapes } from '../../../src/main/reader/shapes';
import { loadSession } from '../../../src/main/session/load';
import { LogBuilder } from '../../../src/main/session/log-builder';

const SESSION = fileURLToPath(new URL('../../../fixtures/palimpsest/lifecycle.jsonl', import.meta.url));

/**
 * keepShape keeps one idle object of each class a load makes per file, so that V8 keeps their hidden
 * classes and the code optimised for them between loads (docs/performance.md). What can be checked
 * here: that each of those classes has its object, and that a load never uses one.
 */
describe('the objects kept for their shapes', () => {
  it('are one of each class a Palimpsest load makes per file, and stay idle through a load', async () => {
    // Kept by the loader, not as a side effect of importing its modules.
    expect(keptShapes()).toEqual([]);
    const session = await loadSession(SESSION);
    expect(session.events.length).toBeGreaterThan(0);
    // Once per program: a second load keeps no more.
    await (await loadSession(SESSION)).dispose();
    await session.dispose();
    const names = keptShapes()
      .map((o) => o.constructor.name)
      .sort();
    expect(names).toEqual(['FileReader', 'JsonlPipeline', 'LogBuilder', 'LogBuilder', 'PalimpsestFileImport']);
    for (const o of keptShapes()) {
      if (o instanceof JsonlPipeline) {
        expect(o.currentLine).toBe(1);
        expect(o.canSkip).toBe(true);
      }
      if (o instanceof LogBuilder) {
        expect(o.nextSeq).toBe(0);
        expect(o.diagnostics).toEqual([]);
      }
    }
    expect(
      keptShapes()
        .filter((o) => o instanceof LogBuilder)
        .map((o) => (o as LogBuilder).compactLog)
        .sort(),
    ).toEqual([false, true]);
  });
});
