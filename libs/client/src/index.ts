export * from './conveyor-client';
export * from './conveyor-client-options.interface';
export * from './conveyor-http.error';
export { ConveyorNetworkError } from './conveyor-network.error';
export * from './job.types';
export * from './operations.types';
export * from './wait-for-job-timeout.error';
export * from './worker';
export * from './worker-protocol.types';
