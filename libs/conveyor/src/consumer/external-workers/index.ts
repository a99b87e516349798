export * from './external-claim-request.interface';
export * from './external-failure.interface';
export * from './external-outcome.interface';
export * from './external-workers.module';
export * from './external-workers.service';
