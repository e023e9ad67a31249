import { useMemo } from 'react';
import { useSession } from './context';

/** The compaction marker and the number of diagnostics at each of the log's requests, by request index. */
export function useRequestMarkers() {
  const markers = useSession((s) => s.markers);
  const compactionAt = useMemo(() => new Map(markers.compaction.map((m) => [m.index, m])), [markers]);
  const diagnosticsAt = useMemo(() => {
    const m = new Map<number, number>();
    for (const d of markers.diagnostic) m.set(d.index, (m.get(d.index) ?? 0) + 1);
    return m;
  }, [markers]);
  return { compactionAt, diagnosticsAt };
}
