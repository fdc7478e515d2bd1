/**
 * Lets a verifier give up waiting when the reader's signal aborts (a client gone, a timeout),
 * so an unanswered authorization server never holds a request.
 * @module
 */
const ignore = () => undefined;

/** `work`, or the signal's reason as soon as the signal aborts (the work itself is not cancelled). */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    // Nobody waits for the work any longer: what it settles with must not become an unhandled
    // rejection, which ends a Node process (a client that left early could cause one).
    work.catch(ignore);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
