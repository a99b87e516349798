import { Module } from '@nestjs/common';
import { ForwardDocumentHandler } from './forward-document.handler';
import { GeneratePdfHandler } from './generate-pdf.handler';
import { SendEmailHandler } from './send-email.handler';
import { SendWebhookHandler } from './send-webhook.handler';

/** The service's own job handlers. A handler is just a provider: list it here and it is discovered. */
@Module({ providers: [SendEmailHandler, SendWebhookHandler, GeneratePdfHandler, ForwardDocumentHandler] })
export class ExampleHandlersModule {}
