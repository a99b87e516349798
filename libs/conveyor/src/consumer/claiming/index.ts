export * from './claim-strategy.interface';
export * from './claim-strategy.provider';
export * from './optimistic.claim-strategy';
export * from './skip-locked.claim-strategy';
