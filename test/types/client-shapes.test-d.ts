/**
 * The client's copy of the API's shapes (@conveyor/client keeps its own, so it does not depend on
 * @conveyor/core at runtime) is the server's, as JSON. A field added, removed or retyped on one side only
 * fails `npm run typecheck` here.
 */
import type * as Client from '@conveyor/client';
import type { JobErrorEntry, JobErrorKind, JobProgress, JobRequest, JobStatus } from '@conveyor/core';
import type { ExternalLease, ExternalOutcome } from '@conveyor/core/consumer/external-workers/external-outcome.interface';
import type { ClaimedJobDto, ReportProgressDto } from '@conveyor/core/http/dto';
import type { JobView } from '@conveyor/core/http/controllers/job-view';
import type { BulkActionResult } from '@conveyor/core/submission/bulk-actions.service';
import type { ListJobsQueryDto } from '@conveyor/core/http/dto/list-jobs-query.dto';
import type { Equal, Expect, Wire } from './type-equality';

// `import type` of the const objects: only their types are compared, nothing is loaded.
type ClientStatuses = typeof Client.JobStatus;
type CoreStatuses = typeof import('@conveyor/core').JobStatus;
type ClientKinds = typeof Client.JobErrorKind;
type CoreKinds = typeof import('@conveyor/core').JobErrorKind;

export type ClientShapeChecks = [
  Expect<Equal<ClientStatuses, CoreStatuses>>,
  Expect<Equal<Client.JobStatus, JobStatus>>,
  Expect<Equal<ClientKinds, CoreKinds>>,
  Expect<Equal<Client.JobErrorKind, JobErrorKind>>,
  Expect<Equal<Client.JobErrorEntry, JobErrorEntry>>,
  Expect<Equal<Client.JobProgress, JobProgress>>,
  Expect<Equal<Client.Job, Wire<JobView>>>,
  Expect<Equal<Client.ClaimedJob, Wire<ClaimedJobDto>>>,
  Expect<Equal<Client.OutcomeReport, Wire<ExternalOutcome>>>,
  Expect<Equal<Client.LeaseReport, Wire<ExternalLease>>>,
  // A progress report is the progress DTO's fields but the lease token.
  Expect<Equal<Client.ProgressReport, Omit<ReportProgressDto, 'leaseToken'>>>,
  // The payload is typed by the caller on the client; every other field is the server's.
  Expect<Equal<Omit<Client.JobRequest, 'payload'>, Omit<JobRequest, 'payload'>>>,
  Expect<Equal<Client.BulkActionResult, Wire<BulkActionResult>>>,
  // The list's filters are the query's; the client takes the payload as an object and times as dates too.
  Expect<Equal<keyof Client.ListJobsFilter, keyof ListJobsQueryDto>>,
];
