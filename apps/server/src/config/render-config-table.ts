import { ENV_SETTINGS, EnvSetting } from './env-settings';

/** Markers around the generated table in docs/configuration.md. */
export const CONFIG_TABLE_START =
  '<!-- config-table:start (generated from apps/server/src/config/env-settings.ts: npm run docs:config) -->';
export const CONFIG_TABLE_END = '<!-- config-table:end -->';

/** The configuration table of docs/configuration.md, rendered from the one list of settings so the two cannot drift apart. */
export function renderConfigTable(): string {
  const rows = ENV_SETTINGS.map(
    (s) => `| \`${s.env}\` | ${optionOf(s)} | ${s.default.startsWith('(') ? s.default : `\`${s.default}\``} | ${s.description} |`,
  );
  return ['| Variable | Option (embedded) | Default | What it does |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** What an app that embeds the engine sets instead: the ConveyorModule option, or the setting's `embedded` place. */
function optionOf(setting: EnvSetting): string {
  if (setting.scope === 'engine') return `\`${setting.target}\``;
  return setting.embedded ?? '—';
}

/** Replaces the generated block in a document's text. */
export function withConfigTable(readme: string): string {
  const start = readme.indexOf(CONFIG_TABLE_START);
  const end = readme.indexOf(CONFIG_TABLE_END);
  if (start < 0 || end < start) throw new Error('the document has no config-table markers');
  return `${readme.slice(0, start + CONFIG_TABLE_START.length)}\n${renderConfigTable()}\n${readme.slice(end)}`;
}
