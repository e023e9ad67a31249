import { useApp } from '../useApp';
import { openedFraction, openingText } from './opening';

/** One open under way: how far it has got, in a bar (when the host knows the size) and in words. */
export function OpeningLine({ path }: { path: string }): React.JSX.Element {
  const progress = useApp((s) => s.openProgress.find((x) => x.path === path));
  const fraction = openedFraction(progress);
  return (
    <p className="muted">
      {fraction !== null && <progress max={1} value={fraction} aria-hidden="true" />}
      <span>{openingText(path, progress)}</span>
    </p>
  );
}
