import { stat } from 'node:fs/promises';
import { namedCapturePath } from '../capture/discover';
import type { z } from 'zod';
import { CONTRACT, type ApiOutput, type LibraryMethod } from '../../shared/api/contract';
import { searchSession } from '../search/session-search';
import type { HandlerContext } from './handlers';
import { ApiFailure } from './sessions';

/**
 * The app shell's handlers (docs/session-view.md): the library listing, native pickers and search
 * within a session. createHandlers (./handlers.ts) validates their inputs before they run and turns
 * what they throw into error values; each output is checked against the contract here.
 */

export type LibraryImpl = { readonly [M in LibraryMethod]: (input: z.output<(typeof CONTRACT)[M]['input']>) => Promise<ApiOutput<M>> };

/** Default and most matches a search lists. */
const DEFAULT_MATCHES = 200;

function checked<M extends LibraryMethod>(m: M, value: z.input<(typeof CONTRACT)[M]['output']>): ApiOutput<M> {
  const r = CONTRACT[m].output.safeParse(value);
  if (!r.success) {
    const first = r.error.issues[0];
    throw new ApiFailure(
      'INTERNAL',
      `The core produced a ${m} result that does not match the API contract: ${first ? `${first.path.join('.')}: ${first.message}` : ''}`,
    );
  }
  return r.data as ApiOutput<M>;
}

export function libraryImplementations(ctx: HandlerContext): LibraryImpl {
  const library = () => {
    if (!ctx.library) throw new ApiFailure('NOT_AVAILABLE', 'This host has no library: open a session by its path.');
    return ctx.library;
  };

  return {
    async discoverSessions({ refresh }) {
      const d = await library().discover(refresh === true);
      return checked('discoverSessions', { ...d, sessions: await markCaptures(d.sessions) });
    },

    async pickPaths({ kind }) {
      return checked('pickPaths', { kind, paths: [...(await library().pick(kind))] });
    },

    async searchLibrary(input) {
      return checked('searchLibrary', await library().search(input));
    },

    async searchSession({ sessionId, query, branch, max }) {
      const s = ctx.registry.get(sessionId);
      const b = branch ?? s.inspector.defaultBranch;
      if (!s.inspector.hasBranch(b)) {
        throw new ApiFailure('NO_BRANCH', `No branch "${b}"; branches: ${s.inspector.branches.map((x) => x.name).join(', ')}.`);
      }
      const limit = max ?? DEFAULT_MATCHES;
      const r = await searchSession(s.inspector, query, b, limit);
      return checked('searchSession', {
        query,
        branch: b,
        total: r.total,
        truncated: r.total > r.matches.length,
        partial: r.partial,
        matches: r.matches,
      });
    },
  };
}

/** Marks the sessions with a capture named for their file beside them: one stat each, a few at a time. */
async function markCaptures<T extends { readonly path: string }>(sessions: readonly T[]): Promise<(T & { capture: boolean })[]> {
  const out: (T & { capture: boolean })[] = [];
  for (let i = 0; i < sessions.length; i += 32) {
    const batch = sessions.slice(i, i + 32);
    const found = await Promise.all(
      batch.map((s) =>
        stat(namedCapturePath(s.path)).then(
          (st) => st.isFile(),
          () => false,
        ),
      ),
    );
    batch.forEach((s, j) => out.push({ ...s, capture: found[j] === true }));
  }
  return out;
}
