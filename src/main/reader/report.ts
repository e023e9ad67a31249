import type { Severity } from '../../shared/model/diagnostic';
import type { DiagnosticSink } from './types';

/** A file with a million bad lines must not produce a million diagnostics. */
export const MAX_DIAGNOSTICS_PER_RULE = 50;

interface RuleCount {
  severity: Severity;
  count: number;
  firstSuppressedLine: number;
}

/**
 * Emits the diagnostics of one file, at most MAX_DIAGNOSTICS_PER_RULE per rule; `finish` then adds
 * one diagnostic per capped rule saying how many were left out.
 */
export class FileReport {
  private readonly counts = new Map<string, RuleCount>();

  constructor(
    readonly file: string,
    private readonly sink: DiagnosticSink,
    private readonly cap: number = MAX_DIAGNOSTICS_PER_RULE,
  ) {}

  add(rule: string, severity: Severity, line: number, message: string): void {
    let c = this.counts.get(rule);
    if (c === undefined) {
      c = { severity, count: 0, firstSuppressedLine: 0 };
      this.counts.set(rule, c);
    }
    c.count++;
    if (c.count <= this.cap) {
      this.sink({ rule, severity, message, file: this.file, line, seqs: [] });
    } else if (c.firstSuppressedLine === 0) {
      c.firstSuppressedLine = line;
    }
  }

  finish(): void {
    for (const [rule, c] of this.counts) {
      const more = c.count - this.cap;
      if (more <= 0) continue;
      const message =
        `${more} more ${more === 1 ? 'finding' : 'findings'} of this kind in this file ` +
        `(from line ${c.firstSuppressedLine} on) are not listed; ${c.count} in total.`;
      this.sink({ rule, severity: c.severity, message, file: this.file, line: c.firstSuppressedLine, seqs: [] });
    }
  }
}
