import { forkFrom, standalone } from './branches';
import type { ClaudeFile } from './file';
import { type Obj, id } from './json';
import { type Branch, type Parent, type Placement, Skel } from './skeleton';
import { sidechainBranch } from './subagents';
import { contains } from './surface';

/*
 * Branch choice (see ./importer.ts, BRANCHES): the branch a conversation record continues — its
 * parent's, unless the parent is not that branch's head (a rewind), the record changes sides
 * (sidechain), it is a new root, or it hangs off another file's record (context a subagent or
 * summarizer inherited) — and the branch of records that are not conversation nodes.
 */

/** Branch for a record that is not a conversation node. */
export function recordBranch(f: ClaudeFile, v: Obj): Branch {
  const p = id(v.parentUuid);
  return branchFor(f, p === undefined ? null : (f.s.uuids.get(p)?.anchor ?? null));
}

/** Branch for a record hanging off conversation record `a`. */
export function branchFor(f: ClaudeFile, a: Skel | null): Branch {
  if (a?.branch && (!f.subagent || a.file === f.info.index)) return a.branch;
  return f.current ?? fileBranch(f);
}

/** The file's own branch; a side question's, before its question, is a branch of its own. */
function fileBranch(f: ClaudeFile): Branch {
  if (!f.fileBranch && f.aside) f.fileBranch = standalone(f, `agent-${f.agentIdFromName ?? 'aside_question'}`, true, 'agent');
  return f.fileBranch ?? f.s.main ?? f.s.newBranch('main', null, null, false, 'agent');
}

/**
 * A side question hanging off record `a` of another file: its branch forks there, so its view is
 * the conversation up to `a` and the question. The question never joins the conversation, so the
 * conversation going on after `a` lacks nothing.
 */
function aside(f: ClaudeFile, a: Skel): Placement {
  f.fileBranch ??= forkFrom(
    f,
    a,
    `agent-${f.agentIdFromName ?? 'aside_question'}`,
    true,
    `side question ${f.agentIdFromName ?? ''} (after line ${a.line} of the main file)`,
  );
  return { branch: f.fileBranch, parent: a };
}

/** Where a conversation record goes (creating a branch for a rewind, sidechain or new root). */
export function place(f: ClaudeFile, p: Parent, sidechain: boolean, prompt: boolean, agentId: string | undefined): Placement {
  if (p.state === 'missing') return { branch: f.current ?? fileBranch(f), parent: null };
  const a = p.state === 'found' ? p.anchor : null;
  if (f.aside && a?.branch && a.file !== f.info.index) return aside(f, a);
  if (!a || !a.branch) {
    // A root: the file's first conversation record, or a new conversation in the same file.
    const fb = fileBranch(f);
    if (f.subagent || !fb.head) return { branch: fb, parent: null };
    if (sidechain) return { branch: sidechainBranch(f, agentId), parent: null };
    f.report(
      'CC_NEW_ROOT',
      'info',
      `Line ${f.cur.line} starts a new conversation (no parent) after the first one; it is a branch of its own.`,
    );
    return { branch: standalone(f, `root-${++f.s.counters.root}`, false, 'agent'), parent: null };
  }
  if (f.subagent && a.file !== f.info.index) {
    // A subagent or summarizer record hanging off a record of another file: context it inherited.
    const b = fileBranch(f);
    if (a.succ !== undefined) {
      f.findings.unloggedContext(f.cur.line, a.line);
      if (contains(b.node, a.succ)) return { branch: b, parent: a, before: a.succ };
    }
    return { branch: b, parent: a };
  }
  const b = a.branch;
  if (sidechain !== b.sidechain && !f.subagent) {
    return {
      branch: forkFrom(
        f,
        a,
        sidechain ? `sidechain-${++f.s.counters.sidechain}` : `root-${++f.s.counters.root}`,
        sidechain,
        `${sidechain ? 'sidechain' : 'conversation'} at line ${f.cur.line}`,
      ),
      parent: a,
    };
  }
  if (a === b.head) return { branch: b, parent: a };
  // One response split over several lines; parallel tool results hang off different lines of it.
  if (!prompt && a.msgId !== undefined && a.msgId === b.turnMsg) return { branch: b, parent: a };
  return {
    branch: forkFrom(f, a, `rewind-${++f.s.counters.rewind}`, b.sidechain, `rewind to line ${a.line} (line ${f.cur.line})`),
    parent: a,
  };
}
