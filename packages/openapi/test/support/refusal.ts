import type { TRPCError } from '@trpc/server';
import { refuseBodyErrors } from '../../src/adapters/fetch.js';

/** The error `createContext` throws for a request this package refused, if any. */
export const refusal = (request: Request): TRPCError | undefined => {
  try {
    refuseBodyErrors()({ req: request });
    return undefined;
  } catch (error) {
    return error as TRPCError;
  }
};
