import { Statement } from './statement';

/**
 * Announces live items that their writer built (LivePublisher.announceItems): sends each of `payloads` as one
 * notification on `channel`, in order, in one statement. The payloads travel as one text parameter, joined by line
 * feeds and split again by the server, so none of them may hold a line feed: JSON text as `JSON.stringify` writes it
 * never does. Each must stay under PostgreSQL's 8000-byte payload limit (`liveChunks`).
 */
export function liveItemsNotify(channel: string, payloads: readonly string[]): Statement {
  return {
    name: 'live_items_notify',
    text: `SELECT pg_notify($1, m) FROM unnest(string_to_array($2, E'\\n')) AS m`,
    values: [channel, payloads.join('\n')],
  };
}
