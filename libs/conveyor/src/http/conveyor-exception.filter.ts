import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { MESSAGES } from '../conveyor.messages';
import { isConnectionError } from '../database/connection-errors';
import { DatabaseUnavailableError, JobRequestError } from '../errors/job-request.errors';
import { errorBody, ErrorBody } from './error-body';

/** Seconds a client should wait after a 503 before trying again. */
export const RETRY_AFTER_SECONDS = 2;

/**
 * Turns every error into `{ statusCode, error, message, details? }`: request errors keep their status,
 * an unreachable database is a 503 with Retry-After (never a 500 or a hang), anything unexpected a 500
 * whose details stay in the log.
 */
@Catch()
export class ConveyorExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Conveyor:Http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    // Terminus answers an unhealthy check with its own documented body; orchestrators parse it as is. Not ready is
    // a 503 like any other: it says when to ask again.
    if (exception instanceof HttpException && isHealthReport(exception.getResponse())) {
      if (exception.getStatus() === 503) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
      res.status(exception.getStatus()).json(exception.getResponse());
      return;
    }
    const body = this.toBody(exception);
    if (body.statusCode === 503) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    if (body.statusCode >= 500 && body.statusCode !== 503) {
      this.logger.error((exception as Error)?.stack ?? String(exception));
    }
    res.status(body.statusCode).json(body);
  }

  private toBody(exception: unknown): ErrorBody {
    // Its message says which: the database cannot be reached, or the connection pool is exhausted.
    if (exception instanceof DatabaseUnavailableError) return errorBody(503, exception.message);
    if (isConnectionError(exception)) return errorBody(503, MESSAGES.databaseUnavailable);
    if (exception instanceof JobRequestError) {
      return errorBody(exception.status, exception.message, exception.details);
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse();
      if (typeof response === 'object' && response && 'statusCode' in response && 'details' in response) return response as ErrorBody;
      const message =
        typeof response === 'string'
          ? response
          : Array.isArray((response as { message?: unknown }).message)
            ? ((response as { message: string[] }).message).join('; ')
            : String((response as { message?: unknown }).message ?? exception.message);
      return errorBody(status, message);
    }
    return errorBody(500, 'Internal server error');
  }
}

/** The body terminus sends with a failed health check: `{ status: 'error', info, error, details }`. */
function isHealthReport(response: unknown): boolean {
  return typeof response === 'object' && response !== null && 'status' in response && 'info' in response && 'details' in response;
}
