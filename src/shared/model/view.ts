import type { Block, ToolSchema } from './content';
import type { Finish, Route, Usage } from './event';
import type { Derivation, ItemId, ItemKind, Role } from './item';

/**
 * What became of a raw item at a given request. Exactly one of the fates (docs/architecture.md):
 * verbatim, masked, pruned, summarised (by checkpoint K), dropped, re-injected.
 */
export type Fate =
  | { readonly fate: 'verbatim' }
  | { readonly fate: 'masked' }
  | { readonly fate: 'pruned'; readonly by: ItemId }
  | { readonly fate: 'summarised'; readonly compactionId: string; readonly by: ItemId }
  | { readonly fate: 'dropped'; readonly reason: string; readonly by?: ItemId }
  | { readonly fate: 'reinjected'; readonly by: ItemId };

export type FateName = Fate['fate'];

/** How an item appears in a model view. */
export type Rendition = 'verbatim' | 'masked';

export interface ViewItem {
  readonly id: ItemId;
  /** The event that created the item. */
  readonly seq: number;
  readonly role: Role;
  readonly kind: ItemKind;
  /** The blocks the model saw. For a masked item: the recorded reference, or null when the log does not say. */
  readonly blocks: readonly Block[] | null;
  readonly rendition: Rendition;
  readonly meta: boolean;
  readonly derivation: Derivation | null;
  /** Every event this view item came from, ascending. Each one exists in the log. */
  readonly provenance: readonly number[];
}

export interface RequestInfo {
  /** 0-based position among the requests of the selected branch. */
  readonly index: number;
  readonly id: string;
  readonly seq: number;
  readonly purpose: string;
  readonly compactionId: string | null;
  readonly route: Route;
  readonly responseSeq: number | null;
  readonly finish: Finish | null;
  readonly usage: Usage | null;
  /** input + cache reads + cache writes, as the provider counted it; null when the log has no usage. */
  readonly reportedInputTokens: number | null;
  readonly error: { readonly code?: string; readonly message: string } | null;
}

export interface TodoBlock {
  readonly todos: readonly { readonly content: string; readonly status: string }[];
  readonly after: ItemId | null;
  readonly seq: number;
}

export interface ModelView {
  readonly request: RequestInfo;
  /** The system prompt, or null: the log does not record it. */
  readonly system: readonly Block[] | null;
  /** Seqs of the header events the system prompt and tools came from. */
  readonly headerSeqs: readonly number[];
  /** Tool schemas, or null: the log does not record them. */
  readonly tools: readonly ToolSchema[] | null;
  readonly items: readonly ViewItem[];
  readonly todo: TodoBlock | null;
  /** What the view cannot know from the log, in words (never guessed). */
  readonly unknowns: readonly string[];
}
