/**
 * The notice that tells every instance a queue was paused: `{"pause": queue}` on the jobs channel, told apart from a
 * due time by its first character, as the cancel and watch notices are. An instance hands back the jobs of that queue
 * it claimed ahead and has not started (an instance of an earlier release, which wakes its poller for a notice it
 * cannot read, does no harm: the claims skip a paused queue).
 */

/** SQL that sends the notice for the queue named by `queueExpr`, on the channel bound to `channelParam`. */
export function pauseNoticeSql(channelParam: string, queueExpr: string): string {
  return `pg_notify(${channelParam}::text, json_build_object('pause', ${queueExpr})::text)`;
}

/** The paused queue a notice names, or null when the payload is something else. */
export function parsePauseNotice(payload: string | undefined): string | null {
  if (!payload || payload[0] !== '{') return null;
  try {
    const value = JSON.parse(payload) as { pause?: unknown };
    return typeof value.pause === 'string' ? value.pause : null;
  } catch {
    return null;
  }
}
