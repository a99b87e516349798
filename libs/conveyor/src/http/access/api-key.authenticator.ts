import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ApiKeyRing, ApiPrincipal } from './api-key-ring';
import { CONVEYOR_HTTP_SETTINGS } from '../options/conveyor-http.constants';
import { ConveyorHttpSettings } from '../options/conveyor-http-options.interface';
import { HTTP_MESSAGES } from '../errors/http.messages';
import { HttpRequestLike } from './http-request';

/** What a request's credentials amount to. */
export type Authentication = { principal: ApiPrincipal } | { problem: 'missing' | 'invalid' };

// One scheme, one token; `\S+` followed by optional spaces leaves the regex nothing to backtrack over.
const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Reads the `Authorization: Bearer <key>` header against the configured keys. Both the rate limit (which
 * counts per key) and the access check need the answer, so it is worked out once per request. Without
 * configured keys the API is open, and start-up says so loudly.
 */
@Injectable()
export class ApiKeyAuthenticator implements OnApplicationBootstrap {
  private readonly logger = new Logger('Conveyor:Http');
  private readonly ring: ApiKeyRing;
  private readonly answers = new WeakMap<HttpRequestLike, Authentication>();

  constructor(@Inject(CONVEYOR_HTTP_SETTINGS) settings: ConveyorHttpSettings) {
    this.ring = new ApiKeyRing(settings.apiKeys);
  }

  /** Whether keys are configured, i.e. requests must carry one. */
  get enabled(): boolean {
    return !this.ring.isEmpty;
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) this.logger.warn(HTTP_MESSAGES.devMode);
  }

  /** The principal behind the request's key, or why there is none. */
  authenticate(req: HttpRequestLike): Authentication {
    let answer = this.answers.get(req);
    if (!answer) {
      answer = this.check(req.headers.authorization);
      this.answers.set(req, answer);
    }
    return answer;
  }

  private check(header: string | undefined): Authentication {
    if (!header) return { problem: 'missing' };
    const token = BEARER.exec(header)?.[1];
    if (!token) return { problem: 'missing' };
    const principal = this.ring.match(token);
    return principal ? { principal } : { problem: 'invalid' };
  }
}
