import { afterAll, beforeAll } from 'vitest';
import { createHandlers } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { closeSessionTokens } from '../../../src/main/api/session/tokens';
import type { PalimpsestApi } from '../../../src/shared/api/contract';

/**
 * The real handlers over a registry that opens any path, for the tests of one file: what a session
 * store is tested against (no transport). Read `api` inside a test, once the file has started.
 */
export function realApi(): { readonly api: PalimpsestApi } {
  let registry: SessionRegistry | null = null;
  let api: PalimpsestApi | null = null;
  beforeAll(() => {
    registry = new SessionRegistry({ allow: 'any' });
    api = createHandlers({ registry, initialPaths: [] });
  });
  afterAll(async () => {
    registry?.dispose();
    await closeSessionTokens();
  });
  return {
    get api(): PalimpsestApi {
      if (!api) throw new Error('realApi: read before the test file started');
      return api;
    },
  };
}
