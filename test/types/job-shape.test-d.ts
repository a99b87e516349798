/**
 * One job, one shape: the REST view, the OpenAPI DTOs and the submission body are tied to the engine's `Job`,
 * `JobErrorEntry` and SubmitJobEnvelope. A field added, removed or retyped on one side only fails
 * `npm run typecheck` here.
 */
import type { Job, JobErrorEntry, JobRequest } from '@conveyor/core';
import type { ClaimedJobDto, JobErrorEntryDto, JobLeaseDto, JobOutcomeDto, SubmitJobDto } from '@conveyor/core/http/dto';
import type { JobDto } from '@conveyor/core/http/dto/job.dto';
import type { JobView } from '@conveyor/core/http/controllers/job-view';
import type { ExternalLease, ExternalOutcome } from '@conveyor/core/consumer/external-workers/external-outcome.interface';
import type { SubmitJobEnvelope } from '@conveyor/core/submission/envelope/submit-job-envelope';
import type { Equal, Expect } from './type-equality';

/** A job as its claim hands it out: the lease it holds is set. */
type Held<T> = { [K in keyof T]: K extends 'leaseToken' | 'lockedUntil' ? NonNullable<T[K]> : T[K] };

export type JobShapeChecks = [
  // What REST answers is the job without its lease token.
  Expect<Equal<JobView, Omit<Job, 'leaseToken'>>>,
  // The OpenAPI schema of a job and of an error entry is exactly that view.
  Expect<Equal<JobDto, JobView>>,
  Expect<Equal<JobErrorEntryDto, JobErrorEntry>>,
  // A claimed job carries the job's own fields, lease token included.
  Expect<Equal<ClaimedJobDto, Held<Pick<Job, keyof ClaimedJobDto>>>>,
  Expect<Equal<JobOutcomeDto, ExternalOutcome>>,
  Expect<Equal<JobLeaseDto, ExternalLease>>,
  // A submission has the same fields over REST (SubmitJobDto, documented; SubmitJobEnvelope, validated) and from code.
  Expect<Equal<SubmitJobDto, Required<SubmitJobEnvelope>>>,
  Expect<Equal<keyof SubmitJobEnvelope, keyof JobRequest>>,
];
