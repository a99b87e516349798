/** `keys` is `role:key` pairs; their text never appears in an error. `json` is any JSON value. */
export type EnvKind = 'int' | 'int-or-auto' | 'number' | 'bool' | 'string' | 'list' | 'map' | 'keys' | 'json';

/** An environment variable, the setting it feeds, its default (for the table in docs/configuration.md) and what it does. */
export interface EnvSetting {
  env: string;
  kind: EnvKind;
  /** Key in the Conveyor engine options, or in the app settings. */
  target: string;
  scope: 'engine' | 'app';
  /**
   * Where an app that embeds `@conveyor/core` sets the same thing, for a service-only setting that has an
   * equivalent (an engine setting is the ConveyorModule option `target`).
   */
  embedded?: string;
  default: string;
  description: string;
}
