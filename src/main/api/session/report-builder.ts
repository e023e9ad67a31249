import type { TokenPolicy } from '../../../shared/tokens/policy';
import type { SessionTokenReport } from '../../../shared/tokens/report';
import type { SessionTokens } from '../../tokens/service';
import { yieldToIo } from '../steps';

/**
 * Builds SessionTokens reports off the request path. A report of a long session takes seconds of
 * main-thread work (every request's figures, then prompt-cache analysis): built inside a request it
 * would hold back every other answer — the first view of a 100 MB session waited 6.7 s behind the
 * first token meter. So answers use the last report built, and a new one is built in the background,
 * in steps of a few hundred requests (SessionTokens.reportSteps) with I/O served between them.
 */

export interface Built {
  readonly report: SessionTokenReport;
  /** The counting version it was built at: older than the current one means stale. */
  readonly version: number;
}

export class ReportBuilder {
  private readonly built = new Map<string, Built>();
  private readonly building = new Map<string, Promise<void>>();

  constructor(
    private readonly tokens: SessionTokens,
    private readonly version: () => number,
    /** false once the session is closed: a report nobody will read is not built. */
    private readonly alive: () => boolean,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** The last report built for this policy (maybe stale), and whether a newer one is on its way. */
  get(key: string, policy: TokenPolicy): { report: SessionTokenReport | null; pending: boolean } {
    const b = this.built.get(key);
    const fresh = b !== undefined && b.version === this.version();
    if (!fresh) this.schedule(key, policy);
    return { report: b?.report ?? null, pending: !fresh };
  }

  private schedule(key: string, policy: TokenPolicy): void {
    if (this.building.has(key)) return;
    const version = this.version();
    const run = async (): Promise<void> => {
      // Let the answers of this round go out first.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const steps = this.tokens.reportSteps(policy);
      for (;;) {
        if (!this.alive()) return;
        const r = steps.next();
        if (r.done) {
          this.built.set(key, { report: r.value, version });
          return;
        }
        await yieldToIo();
      }
    };
    const p = run()
      .catch(this.onError)
      .finally(() => {
        this.building.delete(key);
        // Counting moved on while this one was built: the next question schedules another.
      });
    this.building.set(key, p);
  }
}
