import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorBodyDto } from '../dto/error-body.dto';

/** Error statuses the API answers with its `ErrorBody`. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 503;

/** What each status means when a route has nothing more specific to say. */
const DEFAULT_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: 'Invalid request: `details` names every bad field.',
  401: 'API keys are configured and the request has none, or an unknown one (`WWW-Authenticate: Bearer`).',
  403: "The API key's role does not allow this route.",
  404: 'No job with this id.',
  409: 'The job is in a state that does not allow this.',
  413: 'The body is larger than the limit (`BODY_LIMIT_BYTES`).',
  429: 'Too many requests from this key (or IP) in the current window; `Retry-After` says when to come back.',
  503: 'The job database is unavailable; `Retry-After` says when to try again.',
};

/**
 * Documents error answers of a route, all with the `ErrorBody` shape: `true` takes the usual description
 * of the status, a string says what it means on this route.
 *
 * @example @ApiErrors({ 400: true, 404: true, 409: 'Only DEAD or CANCELLED jobs can be retried.', 503: true })
 */
export function ApiErrors(answers: Partial<Record<ErrorStatus, true | string>>): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...Object.entries(answers).map(([status, text]) =>
      ApiResponse({
        status: Number(status),
        description: text === true ? DEFAULT_DESCRIPTIONS[Number(status) as ErrorStatus] : text,
        type: ErrorBodyDto,
      }),
    ),
  );
}
