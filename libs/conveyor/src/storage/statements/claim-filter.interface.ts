/** What a claim may take. */
export interface ClaimFilter {
  /** Only jobs of these types (the ones this worker has handlers for). */
  types: string[];
  /** Skip jobs in these queues (at their concurrency cap here). */
  excludedQueues: string[];
  /** Only jobs in these queues, when set (HTTP workers claim per queue). */
  onlyQueues?: string[] | null;
  limit: number;
}
