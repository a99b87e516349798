import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension } from '@nestjs/swagger';
import { API_ROLES, ApiRole } from '../options/api-role';
import { RequiresRole } from '../access/requires-role.decorator';
import { ApiErrors } from './api-errors.decorator';

/**
 * `@RequiresRole(role)` plus its documentation, so the two cannot drift apart: the bearer key, the role
 * (`x-required-role`), the 401 of
 * a missing or unknown key, the 429 of the rate limit, and the 403 a weaker key gets (every role but the
 * weakest).
 */
export function ApiAccess(role: ApiRole): MethodDecorator & ClassDecorator {
  return applyDecorators(
    RequiresRole(role),
    ApiBearerAuth(),
    ApiExtension('x-required-role', role),
    ApiErrors({ 401: true, ...(API_ROLES.indexOf(role) > 0 ? { 403: true as const } : {}), 429: true }),
  );
}
