import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InstanceRegistry, InstanceState } from '../../maintenance/instance-registry.service';
import { ConveyorRoutes } from '../access/conveyor-routes.decorator';
import { InstanceListDto } from '../dto';
import { ApiAccess, ApiErrors } from '../openapi';

/** The running instances of the service, from the registry each of them heartbeats into. */
@ApiTags('instances')
@ConveyorRoutes()
@Controller('instances')
export class InstancesController {
  constructor(private readonly instances: InstanceRegistry) {}

  @Get()
  @ApiAccess('producer')
  @ApiOperation({
    summary: 'List running instances',
    description:
      'Per instance: host, version, concurrency, running handlers, the queues it works, leader or not, when it started ' +
      'and was last seen. An instance that stops cleanly leaves at once; one that dies, once its heartbeat lease ran out.',
  })
  @ApiOkResponse({ type: InstanceListDto })
  @ApiErrors({ 503: true })
  async list(): Promise<{ instances: InstanceState[] }> {
    return { instances: await this.instances.list() };
  }
}
