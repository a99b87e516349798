import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { JOB_STATUSES, JobStatus } from '../../job/job-status';

/** One field of a request and what is wrong with it. */
export class FieldProblemDto {
  @ApiProperty({ description: 'Path of the field, e.g. `payload.to` or `jobs[2].type`.', example: 'payload.to' })
  field: string;

  @ApiProperty({ type: [String], example: ['to must be an email'] })
  problems: string[];
}

/** The body of every error answer (documentation only; the API builds it with `errorBody`). */
export class ErrorBodyDto {
  @ApiProperty({ example: 400 })
  statusCode: number;

  @ApiProperty({ description: 'The standard reason phrase of the status.', example: 'Bad Request' })
  error: string;

  @ApiProperty({ example: 'Invalid job submission: payload.to' })
  message: string;

  @ApiPropertyOptional({ type: [FieldProblemDto], description: 'Every invalid field, for validation errors.' })
  details?: FieldProblemDto[];

  @ApiPropertyOptional({
    enum: JOB_STATUSES,
    enumName: 'JobStatus',
    description:
      "On a 409 about a job's state: the state the job is in. `CANCELLED` on a worker's heartbeat or report: an operator cancelled the job; stop working on it.",
    example: 'CANCELLED',
  })
  jobStatus?: JobStatus;
}
