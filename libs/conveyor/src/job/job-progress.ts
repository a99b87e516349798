/**
 * How far a running job has come, as its handler or HTTP worker last reported it: a percentage, a small JSON
 * object of the handler's own (counts, a phase, a message), or both. Stored on the job (`progress`), shown in
 * its REST view and streamed as a live event. Cleared when an attempt starts, so it always describes the current
 * or latest attempt.
 */
export interface JobProgress {
  /** 0–100, or null when only `data` was reported. */
  percent: number | null;
  /** At most {@link MAX_PROGRESS_DATA_BYTES} as JSON, or null when only `percent` was reported. */
  data: Record<string, unknown> | null;
}

/** Largest `progress.data`, in bytes of its JSON text: progress travels in every live event of the job. */
export const MAX_PROGRESS_DATA_BYTES = 1024;
