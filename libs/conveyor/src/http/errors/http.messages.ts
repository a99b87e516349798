/**
 * User-facing messages of access control and of the HTTP set-up. They sit with the HTTP layer rather than in conveyor.messages.ts
 * because the engine never shows them. None of them may ever contain a key.
 */
export const HTTP_MESSAGES = {
  missingKey: 'This API needs an API key: send "Authorization: Bearer <key>".',
  invalidKey: 'The API key is not valid.',
  roleRequired: (required: string, held: string) => `This route needs an API key with the ${required} role; this key has the ${held} role.`,
  rateLimited: (seconds: number) => `Too many requests; try again in ${seconds} s.`,
  devMode:
    "Conveyor's REST API is running WITHOUT AUTHENTICATION (dev mode): anyone who can reach it can submit, " +
    'cancel and retry jobs and pause queues. To turn authentication on, configure API keys: ' +
    'API_KEYS="producer:<key>,admin:<key>" for the Conveyor server, or ConveyorHttpModule.forRoot({ apiKeys: [...] }).',
} as const;
