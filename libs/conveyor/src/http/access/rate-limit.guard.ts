import { CanActivate, ExecutionContext, HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost, Reflector } from '@nestjs/core';
import { ApiKeyAuthenticator } from './api-key.authenticator';
import { CONVEYOR_HTTP_SETTINGS } from '../options/conveyor-http.constants';
import { ConveyorHttpSettings } from '../options/conveyor-http-options.interface';
import { HTTP_MESSAGES } from '../errors/http.messages';
import { HttpRequestLike } from './http-request';
import { Public } from './public.decorator';
import { RateLimiter } from './rate-limiter';
import { clientNetwork } from './client-network';

/**
 * The request limit: counted per valid API key, otherwise per client network (`req.ip`, so behind a proxy set
 * Express's `trust proxy` or Fastify's `trustProxy`): an IPv4 address, or an IPv6 address's /64. It runs before
 * the access check, so guessing keys is limited too. Over the limit: 429 with Retry-After. `@Public()` routes
 * (health, metrics, the dashboard page, the API docs) are never counted.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly limiter: RateLimiter | null;

  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(CONVEYOR_HTTP_SETTINGS) settings: ConveyorHttpSettings,
  ) {
    this.limiter = settings.rateLimit ? new RateLimiter(settings.rateLimit) : null;
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.limiter || context.getType() !== 'http') return true;
    if (this.reflector.getAllAndOverride(Public, [context.getHandler(), context.getClass()])) return true;

    const http = context.switchToHttp();
    const req = http.getRequest<HttpRequestLike>();
    const auth = this.authenticator.authenticate(req);
    const caller =
      'principal' in auth ? `key:${auth.principal.keyId}` : `ip:${clientNetwork(req.ip ?? req.socket?.remoteAddress ?? 'unknown')}`;
    const verdict = this.limiter.hit(caller);
    if (verdict.allowed) return true;
    const seconds = Math.max(1, Math.ceil(verdict.resetMs / 1000));
    this.adapterHost.httpAdapter.setHeader(http.getResponse(), 'Retry-After', String(seconds));
    throw new HttpException(HTTP_MESSAGES.rateLimited(seconds), HttpStatus.TOO_MANY_REQUESTS);
  }
}
