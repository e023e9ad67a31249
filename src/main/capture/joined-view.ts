import type { ModelView } from '../../shared/model/view';
import type { JoinedRequest } from '../../shared/model/wire-join';
import type { SessionInspector } from '../session/inspector';
import { callOf } from './attach';
import { mergeWire, wireView } from './wire-view';

/**
 * The model view of a request of a joined session (its `index` is the joined one): the log's view
 * given what the wire adds, or the wire's alone. null when neither has it (never for a joined request).
 */
export async function joinedView(ins: SessionInspector, j: JoinedRequest, branch = ins.defaultBranch): Promise<ModelView | null> {
  const call = callOf(ins, j);
  let view = j.logIndex === null ? null : await ins.fullView(j.logIndex, branch);
  if (view && call) view = mergeWire(view, j, call);
  else if (!view && call) view = wireView(j, call);
  return view ? { ...view, request: { ...view.request, index: j.index } } : null;
}
