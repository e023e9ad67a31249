import { forkAt, spawnAt, standalone } from './branches';
import { resolve } from './dag';
import type { ClaudeFile } from './file';
import { type Obj, id } from './json';
import type { Branch } from './skeleton';

/*
 * Subagents (see ./importer.ts, SUBAGENTS and COMPACTION): a subagent file is a branch spawned at
 * the Task/Agent call that started it, a summarizer file (`agent-acompact-*`) a branch forked at
 * the start of the compaction it summarised, and sidechain records of older main files are
 * spawned like subagents. The links (agentId → call id) come from ./conversation.ts and
 * ./records.ts (`agent_progress`).
 */

/** A subagent file: a branch spawned at the Task call that started it. */
export function openSubagent(f: ClaudeFile, v: Obj): Branch {
  const agentId = id(v.agentId) ?? f.agentIdFromName ?? stem(f.info.path);
  const callId = f.s.agentLinks.get(agentId);
  const call = callId === undefined ? undefined : f.s.taskCalls.get(callId);
  const base = `agent-${agentId}`;
  if (!call || !call.branch) {
    // Claude Code 2.0.x warms the prompt cache of each subagent type with a "Warmup" prompt no
    // Task call starts: a side call of its own by design, not a subagent that lost its link.
    if (isWarmup(v)) return standalone(f, base, true, 'agent');
    f.report(
      'CC_SUBAGENT_UNLINKED',
      'info',
      `Subagent ${agentId}: no Task call in the session names it${callId ? ` (its call ${callId} is not in the log)` : ''}; its records are a branch of their own.`,
    );
    return standalone(f, base, true, 'agent');
  }
  return spawnAt(f, base, call, `subagent ${agentId} (${callId ?? ''}, line ${call.line} of the main file)`);
}

/** A summarizer file (`agent-acompact-*`): fork at the start of the compaction it summarised. */
export function openSummarizer(f: ClaudeFile, v: Obj): Branch {
  const agentId = id(v.agentId) ?? f.agentIdFromName ?? stem(f.info.path);
  const base = `agent-${agentId}`;
  // A file that starts with a copy of the conversation hangs where the copied record is.
  const own = id(v.uuid);
  const p = resolve(f, own !== undefined && f.s.uuids.has(own) ? own : v.parentUuid);
  const anchor = p.state === 'found' ? p.anchor : null;
  const open = f.s.compactions.filter((c) => !c.linked);
  const c = (anchor ? open.find((x) => x.order > anchor.order) : undefined) ?? open[0];
  if (c) {
    c.linked = true;
    if (!anchor || anchor.order > c.order) {
      f.report(
        'CC_SUMMARIZER_LINK',
        'info',
        `Summarizer ${agentId}: its first record does not hang off the conversation before a compaction; it is linked to the first compaction without a summarizer (${c.id}).`,
      );
    }
    const b = forkAt(f, base, c.branch, c.startSeq, c.node, true, 'compaction', `summarizer of compaction ${c.id}`);
    b.compactionId = c.id;
    return b;
  }
  f.report(
    'CC_SUMMARIZER_LINK',
    'info',
    `Summarizer ${agentId}: the session has no compaction boundary to link it to; its records are a branch of their own.`,
  );
  if (anchor?.branch) return forkAt(f, base, anchor.branch, anchor.tailSeq, anchor.node, true, 'compaction', `summarizer ${agentId}`);
  return standalone(f, base, true, 'compaction');
}

export function sidechainBranch(f: ClaudeFile, agentId: string | undefined): Branch {
  const callId = agentId === undefined ? undefined : f.s.agentLinks.get(agentId);
  const call = callId === undefined ? undefined : f.s.taskCalls.get(callId);
  const base = agentId !== undefined ? `agent-${agentId}` : `sidechain-${++f.s.counters.sidechain}`;
  if (!call?.branch) return standalone(f, base, true, 'agent');
  return spawnAt(f, base, call, `sidechain ${agentId ?? ''} (${callId ?? ''})`);
}

export function stem(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  return base.replace(/\.jsonl$/, '');
}

/** The first record of a 2.0.x cache-warming agent file: a user message that says only "Warmup". */
function isWarmup(v: Obj): boolean {
  const m = v.message;
  return v.type === 'user' && typeof m === 'object' && m !== null && (m as Obj).content === 'Warmup';
}
