import { Module } from '@nestjs/common';
import { SendEmailHandler } from './send-email.handler';
import { SendWebhookHandler } from './send-webhook.handler';

/** The service's own job handlers. A handler is just a provider: list it here and it is discovered. */
@Module({ providers: [SendEmailHandler, SendWebhookHandler] })
export class ExampleHandlersModule {}
