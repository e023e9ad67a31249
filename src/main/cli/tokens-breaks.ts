import { parsePrices, type ModelPrices } from '../../shared/rerun/pinned';
import { BREAK_CAUSES, type BreakTotals, type CacheBreak } from '../../shared/tokens/cache-break';
import { UsageError, type ParsedArgs } from '../command/args';
import { grouped } from '../../shared/grouped';

/*
 * The prompt-cache breaks in `tokens`' text, and its `--price` flags: prices are only what the user
 * gives (nothing is looked up), per model (`MODEL=INPUT,OUTPUT,CACHE_READ[,CACHE_WRITE]`) or for
 * every model (no `MODEL=`).
 */

/** `--price` flags as a map from model id (`*`: every other model) to prices. */
export function priceFlags(args: ParsedArgs): Map<string, ModelPrices> {
  const out = new Map<string, ModelPrices>();
  for (const v of args.lists.get('price') ?? []) {
    const eq = v.indexOf('=');
    const model = eq > 0 ? v.slice(0, eq) : '*';
    const p = parsePrices(eq > 0 ? v.slice(eq + 1) : v);
    if (!p.ok) throw new UsageError(`--price: ${p.error} (as [MODEL=]INPUT,OUTPUT,CACHE_READ[,CACHE_WRITE])`);
    out.set(model, p.value);
  }
  return out;
}

const num = (n: number): string => grouped(Math.round(n));
const usd = (c: number | null): string => (c === null ? 'unpriced' : `$${c.toFixed(c < 1 ? 4 : 2)}`);

/** The break of one request, appended to its prompt-cache column ('' for none). */
export function breakText(b: CacheBreak | undefined): string {
  if (!b) return '';
  return `; CACHE BREAK ${b.cause}${b.certain ? '' : '?'}: ${num(b.tokens)} not read (${num(b.read)} of ${num(b.expected)}), ${usd(b.cost)}`;
}

/** The session's breaks in one header line. */
export function breakTotalsText(t: BreakTotals): string {
  if (t.count === 0) return '  cache       no prompt-cache break: every request read what the one before it left cacheable';
  const causes = BREAK_CAUSES.filter((c) => t.byCause[c])
    .map((c) => `${c} ${t.byCause[c]?.count} (${num(t.byCause[c]?.tokens ?? 0)})`)
    .join(', ');
  const cost = t.cost === null ? 'cost unknown (give prices with --price)' : `cost ${usd(t.cost)} beyond cache reads`;
  return `  cache       ${t.count} prompt-cache break${t.count === 1 ? '' : 's'}: ${num(t.tokens)} tokens not read from the cache — ${causes}; ${cost}`;
}
