import { Statement } from './statement';

/**
 * Sends each of `messages` as one notification on `channel`, in order, in one statement. The messages travel as one
 * text parameter, joined by line feeds and split again by the server, so none of them may hold a line feed: JSON
 * text as `JSON.stringify` writes it never does. Each message must stay under PostgreSQL's 8000-byte payload limit.
 */
export function notifyEach(channel: string, messages: readonly string[]): Statement {
  return {
    name: 'notify_each',
    text: `SELECT pg_notify($1, m) FROM unnest(string_to_array($2, E'\\n')) AS m`,
    values: [channel, messages.join('\n')],
  };
}
