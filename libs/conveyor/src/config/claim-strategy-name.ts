/** The two ways of claiming jobs; both satisfy the same conformance suite. */
export const CLAIM_STRATEGY_NAMES = ['skip-locked', 'optimistic'] as const;
export type ClaimStrategyName = (typeof CLAIM_STRATEGY_NAMES)[number];
