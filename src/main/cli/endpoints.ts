import type { PinnedModel } from '../../shared/rerun/pinned';
import { EndpointApprovals, endpointOrigin } from '../providers/endpoints';
import { UsageError, type ParsedArgs } from '../command/args';

/**
 * The endpoints a command may send keys to besides the providers' own: each `--allow-endpoint URL`,
 * and the endpoints of the models typed on this command line (whoever typed `--base-url` chose it).
 * Models read from the settings file are not approved by being there: the app writes that file,
 * and so can anything that holds a host's token.
 */
export function approvedEndpoints(args: ParsedArgs, typed: readonly PinnedModel[]): EndpointApprovals {
  const urls = args.lists.get('allow-endpoint') ?? [];
  for (const url of urls) {
    if (endpointOrigin(url) === null) throw new UsageError(`--allow-endpoint takes an http or https URL, got "${url}"`);
  }
  return new EndpointApprovals([...urls, ...typed.flatMap((m) => (m.baseUrl !== undefined ? [m.baseUrl] : []))]);
}
