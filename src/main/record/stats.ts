/*
 * Counts for the status line: exchanges, the ones that failed (an HTTP error status, or ended
 * abnormally), and bytes each way. Only counts: never any content.
 */

export class RecordStats {
  requests = 0;
  errors = 0;
  bytesUp = 0;
  bytesDown = 0;
  private listener: (() => void) | null = null;

  /** Called on every change (the status line throttles itself). */
  onChange(fn: () => void): void {
    this.listener = fn;
  }

  /** A request arrived (counted when it starts, so a long stream shows at once). */
  started(): void {
    this.requests++;
    this.listener?.();
  }

  /** An exchange ended. */
  exchange(status: number | null, failed: boolean): void {
    if (failed || status === null || status >= 400) this.errors++;
    this.listener?.();
  }

  up(n: number): void {
    this.bytesUp += n;
    this.listener?.();
  }

  down(n: number): void {
    this.bytesDown += n;
    this.listener?.();
  }
}

const mb = (n: number): string => `${(n / 1e6).toFixed(1)} MB`;

export function statusText(s: RecordStats): string {
  return `record: ${s.requests} request${s.requests === 1 ? '' : 's'}, ${s.errors} error${s.errors === 1 ? '' : 's'}, ${mb(s.bytesUp)} ↑ ${mb(s.bytesDown)} ↓`;
}
