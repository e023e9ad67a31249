import { TOKEN_CATEGORIES } from '../../shared/tokens/categories';
import { describeAmount, type PolicyVerdict, type TokenPolicy } from '../../shared/tokens/policy';
import type { SessionTokenReport } from '../../shared/tokens/report';
import { DEFAULT_MAX_PIECE_BYTES } from '../tokens/encoder';
import type { TokenCounter } from '../tokens/pool';
import type { SessionCacheBreaks } from '../tokens/cache-breaks';
import type { CountRunStats, SessionTokens, ViewAccount } from '../tokens/service';
import { JSON_VERSION } from './json';

/** The token account as JSON: `tokens --json` prints it, and the API answers with the same policy shape. */

export function policyJson(p: TokenPolicy) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    measure: p.measure,
    defaultWindow: p.defaultWindow,
    trigger: describeAmount(p.trigger),
    reactive: p.reactive ? describeAmount(p.reactive) : null,
    rawTail: p.rawTail ? describeAmount(p.rawTail) : null,
    rawTailMessages: p.rawTailMessages,
    outputReserve: p.outputReserve ? describeAmount(p.outputReserve) : null,
    headroom: p.headroom ? describeAmount(p.headroom) : null,
    reserveFor: p.reserveFor,
    pruner: p.pruner,
    breaker: p.breaker,
    edited: p.edited,
    sources: p.sources,
  };
}

function verdictJson(v: PolicyVerdict | undefined) {
  if (!v) return null;
  return {
    state: v.state,
    wouldTrigger: v.wouldTrigger,
    firstOfRun: v.firstOfRun,
    size: v.size,
    sizeSource: v.sizeSource,
    measured: v.measured,
    fill: v.fill,
    lines: v.lines,
    compactedAfter: v.compactedAfter,
  };
}

export function tokensJson(
  path: string,
  tokens: SessionTokens,
  report: SessionTokenReport,
  counted: CountRunStats | null,
  counter: TokenCounter | null,
  view: ViewAccount | null,
  breaks: SessionCacheBreaks,
) {
  const verdicts = new Map(report.policy.verdicts.map((v) => [v.index, v]));
  return {
    palimpsest: JSON_VERSION,
    path,
    branch: tokens.branch,
    format: tokens.inspector.session.format,
    encoding: {
      name: report.encoding.encoding,
      exact: report.encoding.exact,
      family: report.encoding.family,
      note: report.encoding.note,
      implementation: `js-tiktoken ${report.encoding.encoding}, pieces ≤ ${DEFAULT_MAX_PIECE_BYTES} bytes`,
    },
    counting: counted
      ? {
          kind: counter?.kind ?? null,
          threads: counter?.threads ?? 0,
          refs: counted.refs,
          known: counted.known,
          fromCache: counted.fromCache,
          texts: counted.texts,
          chars: counted.chars,
          hydrated: counted.hydrated,
          batches: counted.batches,
          wallMs: Math.round(counted.wallMs),
          countMs: Math.round(counted.countMs),
          estimatedTokens: counted.encoder.estimatedTokens,
          longPieces: counted.encoder.longPieces,
          chunks: counted.encoder.chunks,
          estimatedChunks: counted.encoder.estimatedChunks,
        }
      : null,
    partial: report.partial,
    envelope: { logged: !report.envelopeUnlogged, fit: report.fit },
    policy: {
      ...policyJson(report.policy.policy),
      triggers: report.policy.triggers,
      compactions: report.policy.compactions,
      matched: report.policy.matched,
      unpredicted: report.policy.unpredicted,
      extra: report.policy.extra,
    },
    cacheBreaks: breaks.totals,
    requests: report.requests.map((r) => ({
      ...r,
      counted: r.uncounted === 0,
      policy: verdictJson(verdicts.get(r.index)),
      cacheBreak: breaks.byIndex.get(r.index) ?? null,
    })),
    view: view ? viewAccountJson(view) : null,
  };
}

export function viewAccountJson(v: ViewAccount) {
  const byCategory: Record<string, number> = {};
  TOKEN_CATEGORIES.forEach((c, i) => {
    byCategory[c] = Math.round(v.tokens.byCategory[i] as number);
  });
  return {
    index: v.index,
    total: Math.round(v.tokens.total),
    uncounted: Math.round(v.tokens.estimated),
    byCategory,
    uncountable: v.tokens.uncountable,
    unloggedSystem: v.tokens.unloggedSystem,
    unloggedTools: v.tokens.unloggedTools,
    lines: v.lines,
    cache: v.cache,
    units: v.units,
  };
}
