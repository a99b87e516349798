import { STATUS_CODES } from 'node:http';
import { FieldProblem } from '../../errors/job-request.errors';

/** The JSON shape of every error the API returns. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  details?: FieldProblem[];
  /** On a 409 about a job's state: the state it is in (`CANCELLED` tells a worker its job was cancelled). */
  jobStatus?: string;
}

export function errorBody(statusCode: number, message: string, details?: FieldProblem[], jobStatus?: string): ErrorBody {
  return {
    statusCode,
    error: STATUS_CODES[statusCode] ?? 'Error',
    message,
    ...(details ? { details } : {}),
    ...(jobStatus ? { jobStatus } : {}),
  };
}
