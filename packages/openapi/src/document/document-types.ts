/**
 * The parts of an OpenAPI 3.1 document this package edits, as trpc-to-openapi types them.
 * @module
 */
import type { OpenAPIObject } from 'trpc-to-openapi';

/** A Path Item Object. */
export type PathItem = NonNullable<OpenAPIObject['paths']>[string];
/** An Operation Object. */
export type Operation = NonNullable<PathItem['get']>;
/** A Responses Object: status → Response Object. */
export type Responses = NonNullable<Operation['responses']>;
/** A Response Object as this package writes it. */
export type ResponseObject = { description: string; headers?: Record<string, unknown>; content?: Record<string, unknown> };
