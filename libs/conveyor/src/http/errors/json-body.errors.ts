import { errorBody, ErrorBody } from './error-body';

/** The answers to a request body that cannot be read as JSON, the same on every HTTP platform. */
export const JSON_BODY_ERRORS = {
  tooLarge: (limitBytes: number): ErrorBody => errorBody(413, `Request body is larger than ${limitBytes} bytes`),
  invalidUtf8: (): ErrorBody => errorBody(400, 'Invalid UTF-8 in request body', [{ field: 'body', problems: ['is not valid UTF-8'] }]),
  malformed: (): ErrorBody => errorBody(400, 'Malformed JSON in request body', [{ field: 'body', problems: ['is not valid JSON'] }]),
  unsupportedCharset: (charset: string): ErrorBody => errorBody(415, `Unsupported charset "${charset.toUpperCase()}" of the request body`),
  unsupportedMediaType: (contentType: string | undefined): ErrorBody =>
    errorBody(415, contentType ? `Unsupported media type "${contentType}" of the request body` : 'A request body needs a Content-Type', [
      { field: 'content-type', problems: ['must be application/json'] },
    ]),
  unsupportedEncoding: (encoding: string): ErrorBody =>
    errorBody(415, `Unsupported content encoding "${encoding}" of the request body`, [
      { field: 'content-encoding', problems: ['must be identity, gzip, deflate or br'] },
    ]),
  undecodable: (encoding: string): ErrorBody =>
    errorBody(400, `Request body is not valid ${encoding} data`, [{ field: 'body', problems: [`is not valid ${encoding} data`] }]),
  sizeMismatch: (): ErrorBody =>
    errorBody(400, 'Request body size did not match Content-Length', [{ field: 'content-length', problems: ['does not match the body'] }]),
  malformedPath: (): ErrorBody =>
    errorBody(400, 'Malformed URL path', [{ field: 'path', problems: ['is not valid percent-encoded UTF-8'] }]),
};
