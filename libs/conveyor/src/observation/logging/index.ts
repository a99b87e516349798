export * from './create-conveyor-logger';
export * from './job-log-fields';
export * from './json-logger';
export * from './log-level';
export * from './log-record';
