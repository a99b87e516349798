import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { configureHttp } from '@conveyor/core/http';

@Module({})
class FastifyHostModule {}

/** `node fastify-host.js`: configures a Fastify app for Conveyor's routes, starts and closes it, prints `configured`. */
async function main(): Promise<void> {
  const app = await NestFactory.create<NestFastifyApplication>(FastifyHostModule, new FastifyAdapter(), { logger: false });
  configureHttp(app, { bodyLimitBytes: 1_048_576, apiDocs: false });
  await app.init();
  await app.close();
  console.log('configured');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
