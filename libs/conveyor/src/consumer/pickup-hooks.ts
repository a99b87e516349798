/** DI token of the {@link PickupHooks}: bound in ConveyorModule to the local pickup (consumer/local-pickup/). */
export const PICKUP_HOOKS = Symbol('PICKUP_HOOKS');

/**
 * What the poller and the notification listener tell the local pickup, and ask of it: the claims it must watch for
 * the jobs of quiet inserts, and which notifications only echo an insert that woke the poller already. The
 * pickup's side is LocalPickupService; this interface keeps the consumer's core from depending on it.
 */
export interface PickupHooks {
  /** A NOTIFY from backend `pid` announcing run_at `at`: true when it echoes an insert already woken for. */
  isEcho(pid: number, at: number): boolean;
  /** The poller is about to send a claim: its number, for `claimReturned`. */
  claimStarting(): number;
  /** Claim `claimNo` took `jobs`. */
  claimReturned(claimNo: number, jobs: readonly { id: string }[]): void;
  /** No claim is coming for now (no room, a failed claim, shutdown). */
  noClaimComing(): void;
}
