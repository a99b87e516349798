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

export class JobStateConflictError extends JobRequestError {
  readonly status = 409;
  constructor(message: string) {
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

export class DatabaseUnavailableError extends JobRequestError {
  readonly status = 503;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}
