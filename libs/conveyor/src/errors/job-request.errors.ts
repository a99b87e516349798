/**
 * Errors of a request against the queue. The HTTP layer maps each to a status code;
 * in-code callers can catch them by class.
 */
export interface FieldProblem {
  field: string;
  problems: string[];
}

/** Base of request errors; `status` is the HTTP status they map to. */
export abstract class JobRequestError extends Error {
  abstract readonly status: number;
  details?: FieldProblem[];
}

export class JobValidationError extends JobRequestError {
  readonly status = 400;
  constructor(message: string, details: FieldProblem[]) {
    super(message);
    this.name = 'JobValidationError';
    this.details = details;
  }
}

export class JobNotFoundError extends JobRequestError {
  readonly status = 404;
  constructor(message: string) {
    super(message);
    this.name = 'JobNotFoundError';
  }
}

/** The job is in a state the request does not fit; `jobStatus`, when set, is that state (sent as `jobStatus`). */
export class JobStateConflictError extends JobRequestError {
  readonly status = 409;
  constructor(
    message: string,
    readonly jobStatus?: string,
  ) {
    super(message);
    this.name = 'JobStateConflictError';
  }
}

export class IdempotencyConflictError extends JobRequestError {
  readonly status = 409;
  constructor(message: string) {
    super(message);
    this.name = 'IdempotencyConflictError';
  }
}

/**
 * A job cannot become waiting again because its unique key is held by another waiting or running job of
 * its type (retrying a DEAD job whose key a newer job took). `holderId` is that job.
 */
export class UniqueKeyConflictError extends JobRequestError {
  readonly status = 409;
  constructor(
    message: string,
    readonly holderId: string | null,
  ) {
    super(message);
    this.name = 'UniqueKeyConflictError';
  }
}

export class DatabaseUnavailableError extends JobRequestError {
  readonly status = 503;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

/**
 * Every connection of the pool stayed checked out for as long as a request may wait for one: the service is
 * busy, the database may be fine. Still a DatabaseUnavailableError (a 503 with Retry-After; the engine's
 * loops retry it), with a message that says which.
 */
export class DatabasePoolExhaustedError extends DatabaseUnavailableError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabasePoolExhaustedError';
  }
}
