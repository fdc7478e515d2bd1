/**
 * A type error with a message to read, in tRPC's manner: where an argument is not allowed, its
 * type is this message, which is what the compiler shows.
 * @module
 */

/** A type that only a string equal to `TMessage` (and branded) satisfies: the compiler shows the message. */
export type TypeError<TMessage extends string> = TMessage & { readonly __typeError: TMessage };
