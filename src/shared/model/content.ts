import { z } from 'zod';

/**
 * Content blocks: what an item says. Text-bearing fields may be *elided* in memory: the event log
 * keeps a short preview and the count of characters left out (`elided`), and the full text is
 * re-read from the source line on demand (content is parsed lazily: docs/architecture.md).
 */
const elided = z.number().int().nonnegative().optional();

export const TextBlock = z.object({
  type: z.literal('text'),
  text: z.string(),
  elided,
});
export type TextBlock = z.infer<typeof TextBlock>;

export const ReasoningBlock = z.object({
  type: z.literal('reasoning'),
  text: z.string(),
  /** Provider-encrypted or redacted reasoning: the text is not readable. */
  redacted: z.boolean().optional(),
  elided,
});
export type ReasoningBlock = z.infer<typeof ReasoningBlock>;

export const ImageBlock = z.object({
  type: z.literal('image'),
  mediaType: z.string().optional(),
  /** Size of the encoded image in bytes, when known. The bytes themselves are never kept. */
  bytes: z.number().int().nonnegative().optional(),
});
export type ImageBlock = z.infer<typeof ImageBlock>;

/** Content the log carries but nobody can read (an encrypted remote compaction, for example). */
export const OpaqueBlock = z.object({
  type: z.literal('opaque'),
  label: z.string(),
  chars: z.number().int().nonnegative().optional(),
});
export type OpaqueBlock = z.infer<typeof OpaqueBlock>;

export const LeafBlock = z.discriminatedUnion('type', [TextBlock, ReasoningBlock, ImageBlock, OpaqueBlock]);
export type LeafBlock = z.infer<typeof LeafBlock>;

export const ToolCallBlock = z.object({
  type: z.literal('tool_call'),
  /** The call id that its result answers. */
  id: z.string(),
  name: z.string(),
  /** Arguments exactly as the model wrote them (a JSON string for most providers). */
  input: z.string(),
  elided,
});
export type ToolCallBlock = z.infer<typeof ToolCallBlock>;

export const ToolResultBlock = z.object({
  type: z.literal('tool_result'),
  callId: z.string(),
  content: z.array(LeafBlock),
  isError: z.boolean().optional(),
});
export type ToolResultBlock = z.infer<typeof ToolResultBlock>;

export const Block = z.discriminatedUnion('type', [TextBlock, ReasoningBlock, ImageBlock, OpaqueBlock, ToolCallBlock, ToolResultBlock]);
export type Block = z.infer<typeof Block>;

export const ToolSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  /** JSON Schema of the input, as sent. */
  inputSchema: z.unknown().optional(),
});
export type ToolSchema = z.infer<typeof ToolSchema>;

/** Characters of text a block carries (including elided ones). */
export function blockChars(b: Block): number {
  switch (b.type) {
    case 'text':
    case 'reasoning':
      return b.text.length + (b.elided ?? 0);
    case 'tool_call':
      return b.name.length + b.input.length + (b.elided ?? 0);
    case 'tool_result':
      return b.content.reduce((n, c) => n + blockChars(c), 0);
    case 'opaque':
      return b.chars ?? 0;
    case 'image':
      return 0;
  }
}

/** True when some text of the block was left out of memory and must be re-read from the source. */
export function blockIsElided(b: Block): boolean {
  switch (b.type) {
    case 'text':
    case 'reasoning':
    case 'tool_call':
      return (b.elided ?? 0) > 0;
    case 'tool_result':
      return b.content.some(blockIsElided);
    default:
      return false;
  }
}
