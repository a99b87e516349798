/** A job as the floor's workers see it. */
export interface FloorJob {
  id: string;
  payload: unknown;
}

/** What FloorQueue needs from either shape of the floor's worker. */
export interface FloorWorker {
  start(): Promise<void>;
  /** Stops claiming, lets running handlers finish and writes every outcome. */
  stop(): Promise<void>;
}
