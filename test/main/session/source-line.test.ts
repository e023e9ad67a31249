import { describe, expect, it } from 'vitest';
import { loadSession } from '../../../src/main/session/load';

describe('LoadedSession.sourceLine', () => {
  it("gives the parsed line an event came from, with fields no event carries (the client's version)", async () => {
    const session = await loadSession('fixtures/claude-code/short.jsonl');
    try {
      const request = [...Array(session.events.length).keys()].find((s) => session.events.at(s)?.kind === 'request') as number;
      const line = await session.sourceLine(request);
      expect(line).toMatchObject({ type: 'assistant', version: expect.stringMatching(/^2\.1\./) as unknown });
      expect(await session.sourceLine(session.events.length + 5)).toBeNull();
    } finally {
      await session.dispose();
    }
  });
});
