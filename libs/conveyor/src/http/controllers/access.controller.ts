import { Controller, Get, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuthenticator } from '../access/api-key.authenticator';
import { ConveyorRoutes } from '../access/conveyor-routes.decorator';
import { HttpRequestLike } from '../access/http-request';
import { AccessDto } from '../dto';
import { ApiAccess } from '../openapi';

/**
 * What the key in use may do, so a client (the dashboard) offers only what it may press. Open to every valid key:
 * the guard has already answered 401 for a missing or wrong one.
 */
@ApiTags('access')
@ConveyorRoutes()
@Controller('access')
export class AccessController {
  constructor(private readonly authenticator: ApiKeyAuthenticator) {}

  @Get()
  @ApiAccess('producer')
  @ApiOperation({ summary: 'The role of the API key in use' })
  @ApiOkResponse({ type: AccessDto })
  access(@Req() request: HttpRequestLike): AccessDto {
    if (!this.authenticator.enabled) return { role: 'admin', keysRequired: false };
    const auth = this.authenticator.authenticate(request);
    // The guard let the request through, so the key is a known one.
    return { role: 'principal' in auth ? auth.principal.role : 'producer', keysRequired: true };
  }
}
