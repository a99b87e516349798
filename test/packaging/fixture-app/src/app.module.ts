import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConveyorModule } from '@conveyor/core';
import { ConveyorHttpModule } from '@conveyor/core/http';
import { SendEmailHandler } from './send-email.handler';

/** A host app as a Nest team would write it: its own TypeORM, the engine, the REST entry point, one handler. */
@Module({
  imports: [
    TypeOrmModule.forRoot({
      type: 'postgres',
      url: process.env.DATABASE_URL,
      schema: process.env.DATABASE_SCHEMA,
      autoLoadEntities: true,
    }),
    ConveyorModule.forRoot({ concurrency: 2, pollIntervalMs: 200 }),
    ConveyorHttpModule,
  ],
  providers: [SendEmailHandler],
})
export class AppModule {}
