import { Injectable } from '@nestjs/common';

/**
 * When this instance last found the database unreachable: the engine's loops (claims, heartbeats, outcome writes,
 * maintenance rounds) tell it each time a statement fails for want of a connection.
 *
 * The maintenance leader reads it before rescuing expired leases. An outage longer than a lease lets leases run out
 * while the attempts they cover have finished and their outcomes wait in memory for the database; those outcomes must
 * be written before their leases are declared lost, or a job that succeeded is run again (or ends DEAD on its last
 * attempt). So the rescue waits a while after an outage this instance saw (MaintenanceService).
 */
@Injectable()
export class DatabaseOutages {
  private lastSeenAt = -Infinity;

  /** A statement failed because the database could not be reached. */
  seen(): void {
    this.lastSeenAt = performance.now();
  }

  /** Whether the database was found unreachable within the last `ms`. */
  seenWithin(ms: number): boolean {
    return performance.now() - this.lastSeenAt < ms;
  }
}
