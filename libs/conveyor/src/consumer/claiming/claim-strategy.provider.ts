import { Provider } from '@nestjs/common';
import { CLAIM_STRATEGY, CONVEYOR_OPTIONS } from '../../config/conveyor.constants';
import { ConveyorOptions } from '../../config/conveyor-options.interface';
import { OptimisticClaimStrategy } from './optimistic.claim-strategy';
import { SkipLockedClaimStrategy } from './skip-locked.claim-strategy';

/** Injects the strategy the configuration names as CLAIM_STRATEGY. */
export const claimStrategyProvider: Provider = {
  provide: CLAIM_STRATEGY,
  inject: [CONVEYOR_OPTIONS, SkipLockedClaimStrategy, OptimisticClaimStrategy],
  useFactory: (options: ConveyorOptions, skipLocked: SkipLockedClaimStrategy, optimistic: OptimisticClaimStrategy) =>
    options.claimStrategy === 'optimistic' ? optimistic : skipLocked,
};
