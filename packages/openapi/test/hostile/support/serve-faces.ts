import { isRest, serveFace, type Face, type RunningFace as ServedFace } from '../../support/faces.js';
import { hostileRouter } from './hostile-app.js';

export { FACES, isRest, type Face } from '../../support/faces.js';

/** The body limit of the servers under test. */
export const MAX_BODY = 1024 * 1024;

export interface RunningFace extends ServedFace {
  /** The path prefix of the face's routes: `/api` or `/trpc`. */
  readonly prefix: string;
}

/**
 * Serves the hostile app on one face, with a body limit, logging every failure in full
 * (`console.error(error)`: message, stack and cause), as tRPC's documentation suggests. The
 * `onError` is the plain one a user writes: the handlers wrap it with `oauth2OnError` themselves.
 */
export async function serveHostileFace(face: Face): Promise<RunningFace> {
  const served = await serveFace(hostileRouter, face, { maxBodySize: MAX_BODY, onError: ({ error }) => console.error(error) });
  return { ...served, prefix: isRest(face) ? '/api' : '/trpc' };
}
