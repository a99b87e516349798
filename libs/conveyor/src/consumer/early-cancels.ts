/** Notices kept at most; only notices addressed to this instance are kept, so a few suffice. */
const MAX_KEPT = 1000;

/**
 * Cancel notices for jobs this instance claimed but has not taken into its pool yet: the notice travels on the LISTEN
 * connection and may overtake the answer of the claim that took the job. The pool asks here before holding a claimed
 * job; a job cancelled under the lease token of its claim is never started. The oldest notice goes first when full.
 */
export class EarlyCancels {
  private readonly tokens = new Map<string, string>();

  remember(jobId: string, token: string): void {
    if (this.tokens.size >= MAX_KEPT) this.tokens.delete(this.tokens.keys().next().value as string);
    this.tokens.set(jobId, token);
  }

  /** Whether the job was cancelled under this token (the notice is used up). */
  take(jobId: string, token: string | null): boolean {
    if (this.tokens.get(jobId) !== token) return false;
    this.tokens.delete(jobId);
    return true;
  }
}
