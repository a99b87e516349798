/**
 * Where the Swagger UI is served, below the app's global prefix and ConveyorHttpModule's `path`; the JSON
 * document is at `${API_DOCS_PATH}-json` next to it.
 */
export const API_DOCS_PATH = '/docs';

export const API_DOCS_TITLE = 'Conveyor API';
