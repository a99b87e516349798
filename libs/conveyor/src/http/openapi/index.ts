export * from './api-access.decorator';
export * from './api-errors.decorator';
export * from './setup-api-docs';
