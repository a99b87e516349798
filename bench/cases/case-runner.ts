import { CaseResult, CaseSpec } from '../shared/bench-case';

/** What a case measures; the case process adds who it was and whether it worked. */
export type CaseOutcome = Pick<CaseResult, 'metrics' | 'details'>;

/** One benchmark case, run inside its own process against `spec.schema`. */
export type CaseRunner = (spec: CaseSpec) => Promise<CaseOutcome>;

/** Thrown when a case finished but the database disagrees with what it was told. */
export class CaseCheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CaseCheckError';
  }
}
