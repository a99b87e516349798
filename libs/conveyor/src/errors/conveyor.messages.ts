/** Every user-facing message in one place (the @nestjs/bullmq habit). */
export const MESSAGES = {
  duplicateHandler: (type: string, a: string, b: string) =>
    `Two job handlers claim type "${type}": ${a} and ${b}. Each type must have exactly one @JobHandler.`,
  handlerWithoutHandle: (cls: string, type: string) =>
    `${cls} is decorated with @JobHandler('${type}') but has no handle(job, context) method. Extend JobHandlerHost.`,
  unknownType: (type: string) => `Unknown job type "${type}": no handler is registered for it.`,
  jobNotFound: (id: string) => `Job ${id} does not exist.`,
  cannotCancel: (status: string) => `Only SCHEDULED, PENDING, RETRYING or RUNNING jobs can be cancelled; this job is ${status}.`,
  cannotRunNow: (status: string) => `Only SCHEDULED, PENDING or RETRYING jobs can be run now; this job is ${status}.`,
  cancelledWhileRunning: (id: string) => `Job ${id} was cancelled while it ran; its outcome will not be stored.`,
  cannotRetry: (status: string) => `Only DEAD or CANCELLED jobs can be retried; this job is ${status}.`,
  noHandlerToRetry: (type: string) =>
    `No handler is registered for job type "${type}" on this instance, which takes submissions of the same types only, so a retried job might never run; it stays as it is.`,
  cannotPurge: (status: string) => `Only COMPLETED, DEAD or CANCELLED jobs can be deleted; this job is ${status}.`,
  managerOfAnotherDatabase:
    'The manager passed to enqueue belongs to a DataSource on another database than Conveyor’s: the job would be stored ' +
    'there, where no Conveyor worker looks. Pass a manager of a DataSource on Conveyor’s database.',
  idempotencyMismatch: (key: string) => `Idempotency key "${key}" was already used for a different request.`,
  invalidPayload: (type: string) => `The payload does not fit job type "${type}".`,
  /** The sweeper appends the worker id and a full stop in SQL. */
  leaseExpiredPrefix: 'Lease expired while held by ',
  timedOut: (ms: number) => `Handler timed out after ${ms} ms.`,
  unreadableFailure: 'The handler failed with a value that could not be read (looking at it threw, and so did what it threw).',
  snoozeCapReached: (max: number) => `The job asked to be retried later more than ${max} times.`,
  databaseUnavailable: 'The job database is unavailable; try again shortly.',
  statementCancelled: 'The database cancelled the statement before it finished (its statement_timeout, or an operator); try again shortly.',
  deadlockAborted:
    'The database aborted a statement of this request to break a deadlock with other requests; that statement changed nothing. Try again.',
  serializationFailure:
    'The database aborted a statement of this request because a concurrent change conflicted with it (the database runs ' +
    'REPEATABLE READ or SERIALIZABLE); that statement changed nothing. Try again.',
  unstorableText: (reason: string) =>
    `The request holds a character the job database cannot store, as its encoding is not UTF8 (${reason}). ` +
    'Send text within that encoding, or move the queue to a UTF8 database.',
  databasePoolExhausted: 'The database connection pool is exhausted: every connection is in use. Try again shortly.',
  shuttingDown: 'Worker shut down before the job could finish; it was handed back.',
  queuePaused: 'Its queue was paused before the job started; it was handed back unrun.',
  claimAnswerFull: (maxChars: number) =>
    `Claimed beside jobs whose payloads filled the claim's answer (${maxChars} characters); the job was handed back unrun.`,
  uniqueKeyTaken: (type: string, key: string, holderId: string | null) =>
    `Unique key "${key}" of type "${type}" is held by ${holderId ? `job ${holderId}` : 'another job'}, which is waiting or running; ` +
    'retry this job once that one has finished, or cancel it.',
  bulkRetryUniqueKeyRace:
    'A job with the unique key of one of these jobs was submitted while they were being retried; nothing changed. Try again.',
  uniqueKeyContention: (key: string) => `Jobs holding key "${key}" kept finishing while this submission was answered; try again.`,
  notExternalType: (type: string) => `"${type}" is not a declared external type (EXTERNAL_TYPES / externalTypes).`,
  leaseNotHeld: (id: string, status: string) =>
    `Job ${id} is not RUNNING under this lease token (it is ${status}): the lease expired and the job was rescued, ` +
    'or its outcome was already reported. Nothing was changed.',
  cancelledWhileHeld: (id: string) =>
    `Job ${id} was cancelled while this worker held it: stop working on it. Its outcome will not be stored; nothing was changed.`,
} as const;
