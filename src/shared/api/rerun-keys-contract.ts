import { z } from 'zod';
import { ProviderId } from '../rerun/pinned';

/**
 * The shapes of the provider-key methods of ./rerun-contract.ts (providerKeys, setProviderKey,
 * removeProviderKey). What crosses the API about a key is its status — set, from where, its last
 * four characters — and, once, inbound, the key itself; never the key outbound.
 */

export const KeyStatusRow = z.object({
  set: z.boolean(),
  source: z.enum(['env', 'stored']).nullable(),
  /** Last 4 characters, for keys long enough to show that much safely. Never more. */
  last4: z.string().length(4).nullable(),
});

export const ProviderKeyRow = KeyStatusRow.extend({
  provider: ProviderId,
  /** The environment variables consulted, in order (a set one wins over a stored key). */
  env: z.array(z.string()),
});

/** Providers whose key can be stored: the mock takes none; both OpenAI protocols share one key. */
export const KeyProvider = ProviderId.exclude(['mock']);

/**
 * An API key, as the renderer sends it once (setProviderKey): printable ASCII without spaces, as
 * providers' keys are. The messages never repeat the value, so a bad key is not echoed back in the
 * BAD_INPUT error.
 */
export const ApiKeyInput = z
  .string()
  .min(8, 'A key has at least 8 characters.')
  .max(1000, 'A key has at most 1,000 characters.')
  .regex(/^[\x21-\x7E]+$/, 'A key is printable ASCII without spaces.');

/** Whether this host keeps keys of its own, where, and if not, why (a sentence to show). */
export const KeyStoreStatus = z.object({
  /** setProviderKey can store a key now. */
  available: z.boolean(),
  /** The encrypted key file (under the app's data folder); null on a host without a store. */
  location: z.string().nullable(),
  /** Why keys cannot be stored here, and what to do instead; null when they can. */
  message: z.string().nullable(),
});
export type KeyStoreStatus = z.infer<typeof KeyStoreStatus>;
