import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { MESSAGES } from '../../errors/conveyor.messages';
import {
  connectionErrorText,
  isConnectionError,
  isStatementCancelled,
  isUnstorableText,
} from '../../storage/connections/connection-errors';
import { isDeadlockDetected, isSerializationFailure } from '../../storage/connections/deadlock-detected';
import { DatabaseUnavailableError, JobRequestError, JobStateConflictError } from '../../errors/job-request.errors';
import { errorBody, ErrorBody } from './error-body';

/** Seconds a client should wait after a 503 before trying again. */
export const RETRY_AFTER_SECONDS = 2;

/**
 * Turns every error into `{ statusCode, error, message, details? }`: request errors keep their status; an
 * unreachable database, or a statement the server cancelled (`statement_timeout`) or aborted to break a deadlock, is a
 * 503 with Retry-After (never a 500 or a hang); anything unexpected a 500 whose details stay in the log. It answers
 * through Nest's HTTP adapter, so it works on Express and Fastify.
 */
@Catch()
export class ConveyorExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Conveyor:Http');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = this.adapterHost.httpAdapter;
    const res: unknown = host.switchToHttp().getResponse();
    if (http.isHeadersSent(res)) return;
    // Terminus answers an unhealthy check with its own documented body; orchestrators parse it as is. Not ready is
    // a 503 like any other: it says when to ask again.
    if (exception instanceof HttpException && isHealthReport(exception.getResponse())) {
      if (exception.getStatus() === 503) http.setHeader(res, 'Retry-After', String(RETRY_AFTER_SECONDS));
      http.reply(res, exception.getResponse(), exception.getStatus());
      return;
    }
    const body = this.toBody(exception);
    if (body.statusCode === 503) http.setHeader(res, 'Retry-After', String(RETRY_AFTER_SECONDS));
    // Not a fault of the code, so no stack; but an operator should learn of a statement_timeout set too short.
    if (isStatementCancelled(exception)) {
      this.logger.warn(
        `The database cancelled a statement: ${connectionErrorText(exception)} (if this repeats, statement_timeout may be too short)`,
      );
    }
    // Transient for the caller, but a deadlock that reaches here is worth an operator's look.
    if (isDeadlockDetected(exception)) {
      this.logger.warn(`The database aborted a statement to break a deadlock: ${connectionErrorText(exception)}`);
    }
    // The client's to fix, but a database that is not UTF8 is the operator's to know of.
    if (isUnstorableText(exception)) this.logger.warn(`The job database cannot store a request's text: ${connectionErrorText(exception)}`);
    if (body.statusCode >= 500 && body.statusCode !== 503) {
      this.logger.error((exception as Error)?.stack ?? String(exception));
    }
    http.reply(res, body, body.statusCode);
  }

  private toBody(exception: unknown): ErrorBody {
    // Its message says which: the database cannot be reached, or the connection pool is exhausted.
    if (exception instanceof DatabaseUnavailableError) return errorBody(503, exception.message);
    if (isConnectionError(exception)) return errorBody(503, MESSAGES.databaseUnavailable);
    if (isStatementCancelled(exception)) return errorBody(503, MESSAGES.statementCancelled);
    // One the engine did not settle itself (runAgainOnDeadlock, or one job at a time): the aborted statement changed nothing.
    if (isDeadlockDetected(exception)) return errorBody(503, MESSAGES.deadlockAborted);
    // A race with another change, lost under the database's REPEATABLE READ or SERIALIZABLE: retried, it sees that change.
    if (isSerializationFailure(exception)) return errorBody(503, MESSAGES.serializationFailure);
    if (isUnstorableText(exception)) return errorBody(400, MESSAGES.unstorableText(connectionErrorText(exception)));
    if (exception instanceof JobStateConflictError) return errorBody(409, exception.message, exception.details, exception.jobStatus);
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
            ? (response as { message: string[] }).message.join('; ')
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
