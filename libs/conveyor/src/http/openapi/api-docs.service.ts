import { Injectable } from '@nestjs/common';
import { OpenAPIObject } from '@nestjs/swagger';

/**
 * Whether the API docs are served, and the OpenAPI document once built. configureHttp turns them on with the
 * app (which the document is built from); until then, or with `apiDocs: false`, the docs routes are 404s.
 */
@Injectable()
export class ApiDocsService {
  private build?: () => OpenAPIObject;
  private built?: OpenAPIObject;

  enable(build: () => OpenAPIObject): void {
    this.build = build;
    this.built = undefined;
  }

  get enabled(): boolean {
    return this.build !== undefined;
  }

  /** Built on the first request, when every module's routes are known, and kept. */
  document(): OpenAPIObject | undefined {
    return (this.built ??= this.build?.());
  }
}
