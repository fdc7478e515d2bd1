/**
 * Tells the item streams of a user that their list changed. The database stays the source of
 * what changed (a stream reads the items after the last one it delivered), so a notice only has
 * to wake the stream, never to carry the item: none is lost between two reads, none is sent twice.
 * @module
 */

/**
 * One stream's wait for changes: `changed()` resolves `true` on a change, `false` once stopped.
 *
 * @example
 * ```ts
 * const changes: ItemChanges = feed.watch('alice', signal);
 * ```
 */
export interface ItemChanges {
  changed(): Promise<boolean>;
  close(): void;
}

/**
 * The change notices of one server.
 *
 * @example
 * ```ts
 * const feed = new ItemFeed();
 * const changes = feed.watch('alice', signal);
 * feed.notify('alice'); // after users.addItem('alice', …)
 * await changes.changed(); // true
 * ```
 */
export class ItemFeed {
  private readonly watchers = new Map<string, Set<() => void>>();

  /** Wakes every stream of `username`. */
  notify(username: string): void {
    for (const wake of this.watchers.get(username) ?? []) wake();
  }

  /**
   * Wakes every stream: changes may have been missed (the database's notices were lost for a
   * while), and each stream reads again what came after its last item.
   *
   * @example
   * ```ts
   * feed.notifyAll();
   * ```
   */
  notifyAll(): void {
    for (const watchers of this.watchers.values()) for (const wake of watchers) wake();
  }

  /**
   * Starts watching `username`'s list: a change from now on, even one made before `changed()` is
   * called, resolves the next `changed()`. Stops when `signal` aborts or on `close()`.
   *
   * @example
   * ```ts
   * const changes = feed.watch('alice', signal);
   * while (await changes.changed()) console.log(await users.itemsAfter('alice', last));
   * ```
   */
  watch(username: string, signal: AbortSignal | undefined): ItemChanges {
    let pending = false;
    let resolveWait: ((changed: boolean) => void) | undefined;
    const wake = () => {
      pending = true;
      resolveWait?.(true);
    };
    const close = () => {
      const set = this.watchers.get(username);
      set?.delete(wake);
      if (set?.size === 0) this.watchers.delete(username);
      signal?.removeEventListener('abort', close);
      resolveWait?.(false);
    };
    let set = this.watchers.get(username);
    if (set === undefined) this.watchers.set(username, (set = new Set()));
    set.add(wake);
    signal?.addEventListener('abort', close, { once: true });
    return {
      changed: () => {
        if (signal?.aborted) return Promise.resolve(false);
        if (pending) {
          pending = false;
          return Promise.resolve(true);
        }
        return new Promise<boolean>((resolve) => {
          resolveWait = (changed) => {
            resolveWait = undefined;
            pending = false;
            resolve(changed);
          };
        });
      },
      close,
    };
  }
}
