/** DI token of the service's {@link AppSettings}. */
export const APP_SETTINGS = Symbol('APP_SETTINGS');
