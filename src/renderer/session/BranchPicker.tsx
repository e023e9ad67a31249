import { useSession } from './context';

/**
 * Branches of the session: forks, and the histories reverts and rollbacks left behind. Picking one
 * replays the session on it; the raw history still lists every event, greying those off the branch.
 */
export function BranchPicker(): React.JSX.Element | null {
  const info = useSession((s) => s.info);
  const branch = useSession((s) => s.branch);
  const setBranch = useSession((s) => s.setBranch);
  if (!info || info.branches.length < 2) return null;
  return (
    <label className="sv-branch">
      branch{' '}
      <select value={branch ?? ''} onChange={(e) => void setBranch(e.target.value)} aria-label="Branch">
        {info.branches.map((b) => (
          <option key={b.name} value={b.name}>
            {b.name} · {b.events} events{b.forkedFrom ? ` · from ${b.forkedFrom.branch ?? 'main'} at ${b.forkedFrom.seq}` : ''}
          </option>
        ))}
      </select>
    </label>
  );
}
