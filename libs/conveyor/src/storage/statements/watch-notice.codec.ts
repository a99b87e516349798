/**
 * The notice an instance sends on the jobs channel each time it takes or renews its live-watch lease:
 * `{"watch": ms}`, the lease's length. Listening writers then know for that long that someone watches, without
 * asking the database. Like the cancel notice it is told apart from a due time by its first character.
 */

/** The payload of a watch notice for a lease of `leaseMs`. */
export function watchNoticePayload(leaseMs: number): string {
  return JSON.stringify({ watch: leaseMs });
}

/** The lease length a watch notice carries, or null when the payload is something else. */
export function parseWatchNotice(payload: string | undefined): number | null {
  if (!payload || payload[0] !== '{') return null;
  try {
    const value = JSON.parse(payload) as { watch?: unknown };
    return typeof value.watch === 'number' && Number.isFinite(value.watch) && value.watch > 0 ? value.watch : null;
  } catch {
    return null;
  }
}
