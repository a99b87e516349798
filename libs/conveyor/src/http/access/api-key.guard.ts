import { CanActivate, ExecutionContext, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { HttpAdapterHost, Reflector } from '@nestjs/core';
import { ApiKeyAuthenticator } from './api-key.authenticator';
import { roleAllows } from '../options/api-role';
import { HTTP_MESSAGES } from '../errors/http.messages';
import { HttpRequestLike } from './http-request';
import { Public } from './public.decorator';
import { RequiresRole } from './requires-role.decorator';

/**
 * Access control: with keys configured, a request needs a valid key (401 otherwise, with
 * `WWW-Authenticate: Bearer`) whose role covers the route's `@RequiresRole` (403 otherwise). A route that
 * names no role needs `admin`, so a route added later is closed until someone opens it on purpose.
 * `@Public()` routes are always open.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    // API keys say nothing about other transports (a controller may also serve a microservice).
    if (context.getType() !== 'http' || !this.authenticator.enabled) return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride(Public, targets)) return true;

    const http = context.switchToHttp();
    const auth = this.authenticator.authenticate(http.getRequest<HttpRequestLike>());
    if ('problem' in auth) {
      const invalid = auth.problem === 'invalid';
      this.adapterHost.httpAdapter.setHeader(
        http.getResponse(),
        'WWW-Authenticate',
        `Bearer realm="conveyor"${invalid ? ', error="invalid_token"' : ''}`,
      );
      throw new UnauthorizedException(invalid ? HTTP_MESSAGES.invalidKey : HTTP_MESSAGES.missingKey);
    }
    const required = this.reflector.getAllAndOverride(RequiresRole, targets) ?? 'admin';
    if (!roleAllows(auth.principal.role, required)) {
      throw new ForbiddenException(HTTP_MESSAGES.roleRequired(required, auth.principal.role));
    }
    return true;
  }
}
