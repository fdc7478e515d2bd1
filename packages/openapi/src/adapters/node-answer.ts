import type { ServerResponse } from 'node:http';
import type { MetadataAnswer } from '../resource/well-known.js';

/** Writes a whole answer (status, headers, body) on a Node response. */
export function writeAnswer(res: ServerResponse, answer: MetadataAnswer): void {
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.end(answer.body);
}
