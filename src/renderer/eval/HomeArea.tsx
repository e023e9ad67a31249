import { useEffect, useRef } from 'react';
import { useApp } from '../useApp';
import { EvalView } from './EvalView';
import { setHomeMode, useHomeMode } from './home';
import { HomeTabs } from './HomeTabs';
import { HealthView } from '../library/HealthView';

/**
 * The Library tab's panel: the library of sessions (given by the shell), compaction health across
 * them, or the evals. A host started
 * with an eval spec and no session shows the evals first: that is what it was started for.
 */
export function HomeArea({ library }: { library: React.ReactNode }): React.JSX.Element {
  const mode = useHomeMode();
  const api = useApp((s) => s.api);
  const initialPaths = useApp((s) => s.initialPaths);
  const asked = useRef(false);

  useEffect(() => {
    if (asked.current) return;
    asked.current = true;
    void api.listEvalFiles({}).then((r) => {
      if (r.ok && r.value.specs.some((s) => s.given) && initialPaths.length === 0) setHomeMode('evals');
    });
  }, [api, initialPaths]);

  return (
    <>
      <HomeTabs />
      {mode === 'evals' ? <EvalView /> : mode === 'health' ? <HealthView /> : library}
    </>
  );
}
