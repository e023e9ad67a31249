import { useApp } from '../useApp';

/**
 * Follow: the shown session takes what its harness writes as it writes it either way (new
 * requests, compactions and findings appear, the selection stays); while Follow is on, each change
 * also selects the newest request (the meter and the chart with it). A toggle button: Tab reaches
 * it, Space or Enter flips it, and `aria-pressed` tells a screen reader its state. Beside it, what
 * the last change said when it was more than lines appended: the session read again from the
 * start (a file rewritten or truncated), findings withdrawn.
 */
export function FollowToggle({ sessionId }: { sessionId: string }): React.JSX.Element {
  const following = useApp((s) => s.tabs.find((t) => t.sessionId === sessionId)?.following ?? false);
  const change = useApp((s) => s.tabs.find((t) => t.sessionId === sessionId)?.change);
  const setFollowing = useApp((s) => s.setFollowing);
  const notes = [
    ...(change?.reloaded ? [`read again from the start: ${change.reloaded}`] : []),
    ...(change && change.withdrawn > 0 ? [`${change.withdrawn} finding${change.withdrawn === 1 ? '' : 's'} withdrawn`] : []),
  ];
  return (
    <>
      {notes.length > 0 && (
        <span className="follow-note muted small" role="status">
          {notes.join(' · ')}
        </span>
      )}
      <button
        type="button"
        className={`follow-toggle${following ? ' active' : ''}`}
        aria-pressed={following}
        title={
          following
            ? 'Following: each change selects the newest request. Click to stop.'
            : 'Follow: select the newest request at each change of the session'
        }
        onClick={() => setFollowing(sessionId, !following)}
      >
        {following ? '● Following' : 'Follow'}
      </button>
    </>
  );
}
