import { ENGINE_ENV_SETTINGS } from './engine-env-settings';
import { EnvSetting } from './env-setting';
import { SERVICE_ENV_SETTINGS } from './service-env-settings';

export { EnvKind, EnvSetting } from './env-setting';

/**
 * Every setting the service reads, in one table: parsing, validation messages and docs/configuration.md's
 * configuration table all come from here.
 */
export const ENV_SETTINGS: readonly EnvSetting[] = [...SERVICE_ENV_SETTINGS, ...ENGINE_ENV_SETTINGS];
