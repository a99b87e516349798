import { STATUS_CODES } from 'node:http';
import { FieldProblem } from '../../errors/job-request.errors';

/** The JSON shape of every error the API returns. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  details?: FieldProblem[];
}

export function errorBody(statusCode: number, message: string, details?: FieldProblem[]): ErrorBody {
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message, ...(details ? { details } : {}) };
}
