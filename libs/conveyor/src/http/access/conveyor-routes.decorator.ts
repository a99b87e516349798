import { applyDecorators, UseFilters, UseGuards } from '@nestjs/common';
import { ApiKeyGuard } from './api-key.guard';
import { ConveyorExceptionFilter } from '../errors/conveyor-exception.filter';
import { RateLimitGuard } from './rate-limit.guard';

/**
 * Puts a controller under Conveyor's rate limit, API keys and error format. Applied per controller, never as
 * APP_GUARD / APP_FILTER, so a host app's own routes are neither limited, nor authenticated, nor reformatted
 * by Conveyor. The rate limit comes first, so guessing keys is limited too. A host's own global guards and
 * filters still run as Nest orders them: its guards before these, this filter before its filters.
 */
export const ConveyorRoutes = (): ClassDecorator =>
  applyDecorators(UseGuards(RateLimitGuard, ApiKeyGuard), UseFilters(ConveyorExceptionFilter));
