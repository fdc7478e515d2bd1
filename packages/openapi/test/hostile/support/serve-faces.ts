import { isRest, serveFace, type Face, type RunningFace as ServedFace } from '../../support/faces.js';
import { MAX_BODY, type HostileServer } from '@trpc-oauth2/test-kit';
import { hostileRouter } from './hostile-app.js';

export { FACES, isRest, type Face } from '../../support/faces.js';

export interface RunningFace extends ServedFace, HostileServer {}

/**
 * Serves the hostile app on one face, with a body limit, logging every failure in full
 * (`console.error(error)`: message, stack and cause), as tRPC's documentation suggests. The
 * `onError` is the plain one a user writes: the handlers wrap it with `oauth2OnError` themselves.
 */
export async function serveHostileFace(face: Face): Promise<RunningFace> {
  const served = await serveFace(hostileRouter, face, { maxBodySize: MAX_BODY, onError: ({ error }) => console.error(error) });
  return { ...served, prefix: isRest(face) ? '/api' : '/trpc', rest: isRest(face) };
}
