/** What a claim may take. */
export interface ClaimFilter {
  /** Only jobs of these types (the ones this worker has handlers for). */
  types: string[];
  /** Skip jobs in these queues (at their concurrency cap here). */
  excludedQueues: string[];
  /** Only jobs in these queues, when set (HTTP workers claim per queue). */
  onlyQueues?: string[] | null;
  limit: number;
  /**
   * When set, take jobs in claim order only while their payloads' stored bytes, up to and including each job, stay
   * within this many (at least one job): HTTP workers' claims, whose answer is one JSON text (withinPayloadBudget).
   * Unset for the in-process poller, whose claim statements stay as they are.
   */
  maxPayloadBytes?: number | null;
}
