import type { z } from 'zod';
import { CONTRACT, MAX_DIFF_ROWS, type ApiOutput, type SessionMethod } from '../../shared/api/contract';
import { sessionSummary } from './session/summary';
import { ApiFailure, type SessionRegistry } from './sessions';
import { compactionDetail } from './session/compaction';
import { diffViews } from './session/diff';
import { tokenMeter, tokenSeries } from './session/tokens';
import { alignment, eventText, fateList, indexOrFail, itemText, viewHead, viewWindow } from './session/views';
import { branchOf, contractOutput } from './conform';
import { SessionFollow } from './session/follow';
import type { Env } from '../providers/keys';
import { readSettings } from '../rerun/settings';
import { pinnedPrices } from '../tokens/cache-breaks';

/**
 * Handlers of the session inspector's methods (src/shared/api/session-contract.ts;
 * docs/session-view.md). Spread into the handler table by ./handlers.ts, which validates inputs and
 * turns failures into values; each result is checked against its output schema here, as
 * ./handlers.ts does for its own.
 */

type SessionImpl = { readonly [M in SessionMethod]: (input: z.output<(typeof CONTRACT)[M]['input']>) => Promise<ApiOutput<M>> };

export function sessionImplementations(ctx: {
  readonly registry: SessionRegistry;
  readonly rerun?: { readonly env?: Env };
  readonly countCacheDir?: string;
}): SessionImpl {
  const { registry, countCacheDir } = ctx;
  // Reads a followed session's changes into it (awaitSessionChange).
  const follow = new SessionFollow(registry);
  const open = (sessionId: string, branch?: string) => {
    const s = registry.get(sessionId);
    // A session replaced under its id (the whole taking a first view's place, a change Follow read
    // in) is as good as closed for its counts: what it counted is cached for the one in its place.
    const alive = () => registry.size > 0 && isOpen(registry, sessionId) && registry.get(sessionId).inspector === s.inspector;
    // A first view's texts are not counted: the whole session, read meanwhile, is.
    const count = s.partial === undefined;
    return { s, b: branchOf(s, branch), host: countCacheDir === undefined ? { alive, count } : { alive, count, countCacheDir } };
  };

  return {
    async getSessionInfo({ sessionId }) {
      return contractOutput('getSessionInfo', sessionSummary(registry.get(sessionId)));
    },

    async awaitSessionChange({ sessionId, waitMs, since }) {
      return contractOutput('awaitSessionChange', await follow.await(sessionId, waitMs ?? 25_000, since));
    },

    async getViewHead({ sessionId, branch, index }) {
      const { s, b } = open(sessionId, branch);
      return contractOutput('getViewHead', viewHead(indexOrFail(s.inspector, b, index)));
    },

    async getViewWindow({ sessionId, branch, index, from, count }) {
      const { s, b } = open(sessionId, branch);
      return contractOutput('getViewWindow', viewWindow(indexOrFail(s.inspector, b, index), from, count));
    },

    async getItemText({ sessionId, branch, index, itemId }) {
      const { s, b } = open(sessionId, branch);
      return contractOutput('getItemText', await itemText(s.inspector, indexOrFail(s.inspector, b, index), itemId));
    },

    async getEventText({ sessionId, seq }) {
      const s = registry.get(sessionId);
      return contractOutput('getEventText', await eventText(s.inspector, seq));
    },

    async getAlignment({ sessionId, branch, index, from, count }) {
      const { s, b } = open(sessionId, branch);
      return contractOutput('getAlignment', alignment(s.inspector, indexOrFail(s.inspector, b, index), from, count));
    },

    async getTokenMeter({ sessionId, branch, index, policy }) {
      const { s, b, host } = open(sessionId, branch);
      return contractOutput('getTokenMeter', tokenMeter(s.inspector, b, index, policy, host));
    },

    async getTokenSeries({ sessionId, branch, policy }) {
      const { s, b, host } = open(sessionId, branch);
      // The prices the user pinned for re-runs price the cache breaks too: nothing is looked up.
      const prices = pinnedPrices((await readSettings(ctx.rerun?.env ?? process.env)).chain);
      return contractOutput('getTokenSeries', tokenSeries(s.inspector, b, policy, host, prices));
    },

    async getCompaction({ sessionId, branch, compactionId }) {
      const { s, b } = open(sessionId, branch);
      return contractOutput('getCompaction', await compactionDetail(s.inspector, b, compactionId));
    },

    async listFates({ sessionId, branch, index, fate, from, count }) {
      const { s, b } = open(sessionId, branch);
      return contractOutput('listFates', fateList(indexOrFail(s.inspector, b, index), fate, from, count));
    },

    async diffViews({ sessionId, branch, a, b: bIndex, limit }) {
      const { s, b } = open(sessionId, branch);
      const va = indexOrFail(s.inspector, b, a);
      const vb = indexOrFail(s.inspector, b, bIndex);
      return contractOutput('diffViews', diffViews(va, vb, limit ?? MAX_DIFF_ROWS));
    },
  };
}

function isOpen(registry: SessionRegistry, id: string): boolean {
  try {
    registry.get(id);
    return true;
  } catch (err: unknown) {
    if (err instanceof ApiFailure && err.code === 'NO_SESSION') return false;
    throw err;
  }
}
