export * from './conveyor-metrics.service';
export * from './metrics.constants';
export * from './metrics.module';
