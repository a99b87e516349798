import { Reflector } from '@nestjs/core';

/**
 * Marks a route or controller as open to anyone, uncounted by the rate limit: meant for health probes,
 * which orchestrators call without keys and must never see a 401 or 429.
 */
export const Public = Reflector.createDecorator<void, true>({ transform: () => true });
