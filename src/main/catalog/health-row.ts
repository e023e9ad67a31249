import type { SessionHealth } from '../../shared/health/row';
import { sessionHealth } from '../health/row';
import type { SessionInspector } from '../session/inspector';

/*
 * The health report's row of a session (src/main/health/row.ts), built while the index reads the
 * session for search anyway, so that the report reads rows from the index instead of loading every
 * session again (./health-source.ts). Built with the rule texts loaded, as `inspect`
 * and the report build it, before the index's own findings are counted: those then agree with
 * `inspect` too. Where the session was found (harness, project as discovery names them) is set when
 * the row is read, from the index's row of the session.
 */

/** The row, or why it could not be built: a failure here never costs the session its search entry. */
export type HealthFact = { readonly row: SessionHealth } | { readonly error: string };

export async function healthFact(inspector: SessionInspector, path: string, session?: string): Promise<HealthFact> {
  try {
    await inspector.loadRuleTexts();
    const key = session === undefined ? path : `${path}#${session}`;
    return { row: sessionHealth(inspector, { key, path }) };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}
