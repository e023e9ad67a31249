import type { EventOf } from '../../../shared/model/event';
import { sentInstructions } from './compaction';
import { isObj, str } from './json';
import { newerThanVerified, newestVerified } from '../../../shared/compat/newest';
import type { CodexState } from './state';
import { knownUsageOrder } from '../../dialects/codex-usage-order';

/**
 * `session_meta`: the session (id, version, parent of a fork or subagent) and its first header
 * (the instructions sent with every request, the provider). A repeated one is a resume.
 */
export function sessionMeta(s: CodexState, p: unknown): void {
  if (!isObj(p)) {
    ensureSession(s);
    s.bad('session_meta', 'session_meta has no payload object');
    return;
  }
  const id = str(p.id);
  if (s.sessionEmitted) {
    if (id !== undefined && id === s.sessionId) {
      // The same session written again: a new process appended to it.
      if (s.liveSeqs.length > 0 && s.turn.markResume()) s.emit({ kind: 'lifecycle', boundary: 'resume' });
      s.record('session_meta', 'session_meta repeated: the session was resumed');
    } else if (s.forkParent !== undefined) {
      s.record('session_meta', `session_meta of ${id ?? '?'}, copied with the forked history`);
    } else {
      s.report(
        'CODEX_SECOND_SESSION_META',
        'warning',
        `Line ${s.cur.line}: a second session_meta (id ${id ?? '?'}) in a rollout of session ${s.sessionId ?? '?'}; it is kept as a record and the first one stands.`,
      );
      s.record('session_meta', `session_meta of ${id ?? '?'}`);
    }
    return;
  }
  s.sessionEmitted = true;
  if (id === undefined) s.report('CODEX_BAD_RECORD', 'error', `Line ${s.cur.line}: session_meta has no string "id".`);
  s.sessionId = id ?? '';
  const session: EventOf<'session'> = { kind: 'session', id: s.sessionId, harness: 'codex' };
  const version = str(p.cli_version);
  if (version !== undefined) {
    session.harnessVersion = version;
    s.version = version;
    s.usageOrder = knownUsageOrder(version);
    // The newest version the fidelity suite ran on the wire (src/shared/compat/versions.ts).
    if (newerThanVerified('codex', version)) {
      s.report(
        'CODEX_VERSION',
        'warning',
        `Line ${s.cur.line}: cli_version ${version} is newer than ${newestVerified('codex') ?? '?'}, the newest Codex verified on the wire (docs/compatibility.md). Records this importer does not know are kept and counted (UNKNOWN_RECORDS); check the model view against the rollout.`,
      );
    }
  }
  const cwd = str(p.cwd);
  if (cwd !== undefined) session.cwd = cwd;
  const nick = str(p.agent_nickname);
  if (nick !== undefined) {
    const role = str(p.agent_role);
    session.title = role !== undefined ? `${nick} (${role})` : nick;
  }
  const forked = str(p.forked_from_id);
  const source = isObj(p.source) ? p.source : undefined;
  const subagent = source && isObj(source.subagent) ? source.subagent : undefined;
  const spawn = subagent && isObj(subagent.thread_spawn) ? subagent.thread_spawn : undefined;
  const spawnParent = spawn ? str(spawn.parent_thread_id) : undefined;
  if (forked !== undefined || spawnParent !== undefined) {
    const parent = (spawnParent ?? forked) as string;
    session.parent = { session: parent, origin: spawnParent !== undefined ? 'subagent' : 'fork' };
    s.forkParent = parent;
  }
  const metaAt = str(p.timestamp);
  s.emit(session, s.cur, s.at ?? metaAt);

  // The instructions sent with every request: `base_instructions.text`. Without it (older
  // rollouts), Codex sent its built-in prompt, which is not logged (./compaction.ts).
  const header: EventOf<'header'> = { kind: 'header', reason: 'session_meta', tools: null };
  const instructions = sentInstructions(p);
  header.system = instructions !== undefined ? [{ type: 'text', text: instructions }] : null;
  const provider = str(p.model_provider);
  if (provider !== undefined) {
    header.route = { provider };
    s.route = { ...s.route, provider };
  }
  s.emit(header);
}

/** A file whose first record is not `session_meta` still gets a session, named after the file. */
export function ensureSession(s: CodexState): void {
  if (s.sessionEmitted) return;
  s.sessionEmitted = true;
  const m = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(s.path);
  const id = m?.[1] ?? s.path.replace(/^.*[\\/]/, '');
  s.sessionId = id;
  s.report(
    'CODEX_NO_SESSION_META',
    'warning',
    `Line ${s.cur.line}: the rollout does not start with a session_meta record; the session is named after the file (${id}), and its system prompt and provider are unknown.`,
  );
  s.emit({ kind: 'session', id, harness: 'codex' });
}
