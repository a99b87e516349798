import { Injectable } from '@nestjs/common';

/**
 * When this instance last found the database unreachable: the engine's loops (claims, heartbeats, outcome writes,
 * maintenance rounds) tell it each time a statement fails for want of a connection.
 *
 * The maintenance leader reads it before rescuing expired leases: after an outage the rescue waits until the outcomes
 * that waited through it have been written (maintenance/rescue-hold.ts).
 */
@Injectable()
export class DatabaseOutages {
  private lastSeenAt = -Infinity;

  /** A statement failed because the database could not be reached. */
  seen(): void {
    this.lastSeenAt = performance.now();
  }

  /** Whether the database was found unreachable after `at` (performance.now(); -Infinity for ever). */
  seenSince(at: number): boolean {
    return this.lastSeenAt > at;
  }
}
