import { rerunTarget } from './registry';

/**
 * The inspector's ways into re-run & compare: buttons that switch the session to that view with
 * the compaction (or the request) already targeted, on the branch the inspector shows. Native
 * buttons, so they are in the tab order and work with Enter and Space.
 */

interface Where {
  readonly sessionId: string;
  /** The inspector's branch; null: the session's default. */
  readonly branch: string | null;
}

const onBranch = (branch: string | null): { branch?: string } => (branch !== null ? { branch } : {});

export function RerunCompactionButton({ sessionId, branch, compactionId }: Where & { readonly compactionId: string }): React.JSX.Element {
  return (
    <button
      type="button"
      className="rr-entry"
      title={`Open Re-run & compare with ${compactionId} selected`}
      onClick={() => rerunTarget(sessionId, { target: { compaction: compactionId }, ...onBranch(branch) })}
    >
      Re-run this compaction
    </button>
  );
}

export function RerunRequestButton({ sessionId, branch, index }: Where & { readonly index: number }): React.JSX.Element {
  return (
    <button
      type="button"
      className="rr-entry"
      title={`Open Re-run & compare on the model view of request #${index}`}
      onClick={() => rerunTarget(sessionId, { target: { request: index }, ...onBranch(branch) })}
    >
      Re-run from this request
    </button>
  );
}
