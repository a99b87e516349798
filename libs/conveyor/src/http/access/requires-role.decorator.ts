import { Reflector } from '@nestjs/core';
import { ApiRole } from '../options/api-role';

/**
 * The least role an API key needs for a route or a whole controller (the route's own marking wins).
 * A route without it needs `admin`. Only records metadata; ApiKeyGuard enforces it.
 */
export const RequiresRole = Reflector.createDecorator<ApiRole>();
