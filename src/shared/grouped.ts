/*
 * A number with thousands separators, as `n.toLocaleString('en-US', { maximumFractionDigits })`
 * writes it. By hand because the first toLocaleString or Intl.NumberFormat of a process loads ICU's
 * number data, 13–18 ms here: a sixteenth of what a CLI command on a typical session may take, and
 * paid by every command that prints one count.
 */
export function grouped(n: number, maxFractionDigits = 3): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '∞' : '-∞';
  const abs = Math.abs(n);
  // toFixed turns to exponent notation from 1e21 on; so rare in a count that ICU may pay for it.
  if (abs >= 1e21) return n.toLocaleString('en-US', { maximumFractionDigits: maxFractionDigits });
  let [whole = '0', fraction = ''] = abs.toFixed(maxFractionDigits).split('.');
  fraction = fraction.replace(/0+$/u, '');
  whole = whole.replace(/\B(?=(\d{3})+$)/gu, ',');
  const sign = n < 0 || Object.is(n, -0) ? '-' : '';
  return `${sign}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}
