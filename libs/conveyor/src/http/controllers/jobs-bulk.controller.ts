import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { BulkAction, BulkActionResult, BulkActionsService } from '../../submission/bulk-actions.service';
import { BulkActionDto, BulkActionResultDto, MAX_BULK_IDS } from '../dto';
import { ApiAccess, ApiErrors } from '../openapi';
import { conveyorValidationPipe } from '../pipes/validation.pipe';
import { ConveyorRoutes } from '../access/conveyor-routes.decorator';

const PER_ID =
  `Up to ${MAX_BULK_IDS} ids. Each job is handled on its own, as the single-job route would: a job in a state that does ` +
  'not allow the action (409) or missing (404) is reported in its result and does not stop the others.';

/**
 * Cancel, retry or delete chosen jobs (the dashboard's selection). Admin only. Registered before JobsController,
 * whose `:id/cancel` and `:id/retry` would otherwise take `bulk` for an id on Express.
 */
@ApiTags('jobs')
@ConveyorRoutes()
@Controller('jobs/bulk')
export class JobsBulkController {
  constructor(private readonly bulk: BulkActionsService) {}

  @Post('cancel')
  @ApiAccess('admin')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel many jobs', description: `Waiting or RUNNING → CANCELLED (see \`POST /jobs/{id}/cancel\`). ${PER_ID}` })
  @ApiBody({ type: BulkActionDto })
  @ApiOkResponse({ type: BulkActionResultDto })
  @ApiErrors({ 400: true, 413: true, 503: true })
  cancel(@Body(conveyorValidationPipe()) body: BulkActionDto): Promise<BulkActionResult> {
    return this.apply('cancel', body);
  }

  @Post('retry')
  @ApiAccess('admin')
  @HttpCode(200)
  @ApiOperation({ summary: 'Retry many jobs', description: `DEAD or CANCELLED → PENDING (see \`POST /jobs/{id}/retry\`). ${PER_ID}` })
  @ApiBody({ type: BulkActionDto })
  @ApiOkResponse({ type: BulkActionResultDto })
  @ApiErrors({ 400: true, 413: true, 503: true })
  retry(@Body(conveyorValidationPipe()) body: BulkActionDto): Promise<BulkActionResult> {
    return this.apply('retry', body);
  }

  @Post('delete')
  @ApiAccess('admin')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Delete many finished jobs',
    description: `COMPLETED, DEAD or CANCELLED jobs only (see \`DELETE /jobs/{id}\`). ${PER_ID}`,
  })
  @ApiBody({ type: BulkActionDto })
  @ApiOkResponse({ type: BulkActionResultDto })
  @ApiErrors({ 400: true, 413: true, 503: true })
  remove(@Body(conveyorValidationPipe()) body: BulkActionDto): Promise<BulkActionResult> {
    return this.apply('delete', body);
  }

  private apply(action: BulkAction, body: BulkActionDto): Promise<BulkActionResult> {
    return this.bulk.apply(action, body.ids);
  }
}
