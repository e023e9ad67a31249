import { useApp } from '../useApp';

/**
 * Follow: while on, the session is opened anew each time its harness writes to it, and the view
 * stays on the newest request (the meter and the chart with it). A toggle button: Tab reaches it,
 * Space or Enter flips it, and `aria-pressed` tells a screen reader its state.
 */
export function FollowToggle({ sessionId }: { sessionId: string }): React.JSX.Element {
  const following = useApp((s) => s.tabs.find((t) => t.sessionId === sessionId)?.following ?? false);
  const setFollowing = useApp((s) => s.setFollowing);
  return (
    <button
      type="button"
      className={`follow-toggle${following ? ' active' : ''}`}
      aria-pressed={following}
      title={
        following ? 'Following: new requests appear as they are written. Click to stop.' : 'Follow the session as its harness writes it'
      }
      onClick={() => setFollowing(sessionId, !following)}
    >
      {following ? '● Following' : 'Follow'}
    </button>
  );
}
