/**
 * How one document manager ended up with the document: `sent` by this job, `already-present` when it
 * had the document before this job asked (submitted elsewhere), or `rejected` with its answer.
 */
export type ManagerOutcome =
  | { outcome: 'sent'; status: number }
  | { outcome: 'already-present'; status: number }
  | { outcome: 'rejected'; status: number; reason: string };

/** What FORWARD_DOCUMENT stores as its result: one entry per manager, in the payload's order. */
export interface ForwardDocumentResult {
  documentId: string;
  managers: Array<{ manager: string } & ManagerOutcome>;
}
