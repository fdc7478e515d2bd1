import { PasswordQueue } from './password-queue.js';
import { hashPassword, verifyPassword } from './passwords.js';
import type { Database } from './database.js';
import type { ItemRow, UserRow } from './schema.js';

/**
 * A user as the API shows it (never with the password hash).
 *
 * @example
 * ```ts
 * const alice: User = { username: 'alice', fullName: 'Alice Liddell', email: 'alice@example.com', scopes: ['me', 'items'] };
 * ```
 */
export interface User {
  username: string;
  fullName: string;
  email: string;
  /** The scopes this user may be granted. */
  scopes: string[];
}

/**
 * An item a user owns.
 *
 * @example
 * ```ts
 * const item: Item = { id: 1, title: 'Pocket watch' };
 * ```
 */
export interface Item {
  id: number;
  title: string;
}

/**
 * What a new user is made of.
 *
 * @example
 * ```ts
 * const bob: NewUser = { username: 'bob', fullName: 'Bob', email: 'bob@example.com', password: 'builder', scopes: ['me'], items: [] };
 * ```
 */
export interface NewUser extends User {
  password: string;
  items: string[];
}

/**
 * The channel `addItem` notifies (its payload: the owner's username) on the database, so that
 * every server sharing one PostgreSQL server wakes that user's item streams, not only the server
 * the item was added through.
 *
 * @example
 * ```ts
 * await db.listen(ITEM_CHANGES_CHANNEL, (username) => feed.notify(username), () => feed.notifyAll());
 * ```
 */
export const ITEM_CHANGES_CHANNEL = 'demo_item_changes';

/**
 * The most items one user may have. The item list is read whole (`users.items`, and a stream
 * resuming from the start), so an unbounded list would make one request's work and memory grow
 * with every add.
 *
 * @example
 * ```ts
 * if ((await users.addItem('alice', 'Teacup')) === null) refuse(`at most ${MAX_ITEMS_PER_USER} items`);
 * ```
 */
export const MAX_ITEMS_PER_USER = 1_000;

/**
 * The largest item id: `items.id` is a PostgreSQL `serial` (a 4-byte integer), which refuses a
 * larger number in a query with an error, so an id past it is refused before the database is asked.
 *
 * @example
 * ```ts
 * if (Number(lastEventId) > MAX_ITEM_ID) refuse('no item has this id');
 * ```
 */
export const MAX_ITEM_ID = 2_147_483_647;

/**
 * Users and their items, over the database.
 *
 * @example
 * ```ts
 * const users = await UserStore.open(db);
 * const alice = await users.authenticate('alice', 'wonderland'); // User | null
 * ```
 */
export class UserStore {
  private constructor(
    private readonly db: Database,
    /** Checked when the username is unknown, so that costs what a wrong password costs. */
    private readonly dummyHash: string,
    /** Every password check of the process takes its turn here. */
    private readonly passwords: PasswordQueue,
  ) {}

  /**
   * The store over `db`; computes the dummy hash once. Password checks go through `passwords`.
   *
   * @example
   * ```ts
   * const users = await UserStore.open(db, new PasswordQueue());
   * ```
   */
  static async open(db: Database, passwords: PasswordQueue = new PasswordQueue()): Promise<UserStore> {
    return new UserStore(db, await hashPassword('not a password: hashed once so unknown users cost a real check'), passwords);
  }

  /**
   * The user, or `null` for an unknown username, a wrong password or a disabled account: the
   * caller cannot tell which, and each takes one scrypt check, in its turn of the password queue
   * (`requester`: what the queue takes turns by, e.g. the request).
   *
   * @example
   * ```ts
   * await users.authenticate('alice', 'wonderland'); // { username: 'alice', … }
   * await users.authenticate('nobody', 'x');         // null, after the same work
   * ```
   */
  async authenticate(username: string, password: string, requester: object = {}): Promise<User | null> {
    const row = storable(username)
      ? (
          await this.db.query<UserRow>('SELECT username, full_name, email, scopes, disabled, password_hash FROM users WHERE username = $1', [
            username,
          ])
        ).rows[0]
      : undefined;
    const valid = await this.passwords.run(requester, () => verifyPassword(password, row?.password_hash ?? this.dummyHash));
    return valid && row !== undefined && !row.disabled ? toUser(row) : null;
  }

  /**
   * An enabled user by name, or `null`.
   *
   * @example
   * ```ts
   * const user = await users.find(claims.sub);
   * ```
   */
  async find(username: string): Promise<User | null> {
    if (!storable(username)) return null;
    const { rows } = await this.db.query<PublicUserRow>(
      'SELECT username, full_name, email, scopes, disabled FROM users WHERE username = $1',
      [username],
    );
    const row = rows[0];
    return row === undefined || row.disabled ? null : toUser(row);
  }

  /**
   * A user's items, oldest first.
   *
   * @example
   * ```ts
   * await users.items('alice'); // [{ id: 1, title: 'Pocket watch' }, …]
   * ```
   */
  async items(username: string): Promise<Item[]> {
    const { rows } = await this.db.query<Pick<ItemRow, 'id' | 'title'>>('SELECT id, title FROM items WHERE owner = $1 ORDER BY id', [username]);
    return rows.map(({ id, title }) => ({ id, title }));
  }

  /**
   * A user's items added after the item `afterId` (by id, which only grows), oldest first: what a
   * stream resuming from its last event has not delivered yet.
   *
   * @example
   * ```ts
   * await users.itemsAfter('alice', 2); // [{ id: 3, title: 'Teacup' }, …]
   * ```
   */
  async itemsAfter(username: string, afterId: number): Promise<Item[]> {
    const { rows } = await this.db.query<Pick<ItemRow, 'id' | 'title'>>('SELECT id, title FROM items WHERE owner = $1 AND id > $2 ORDER BY id', [username, afterId]);
    return rows.map(({ id, title }) => ({ id, title }));
  }

  /**
   * Adds an item to a user's list and returns it; `null` when the list holds
   * {@link MAX_ITEMS_PER_USER} items already.
   *
   * @example
   * ```ts
   * await users.addItem('alice', 'Teacup'); // { id: 4, title: 'Teacup' }
   * ```
   */
  async addItem(username: string, title: string): Promise<Item | null> {
    return this.db.transaction(async (tx) => {
      // The owner's row is locked first, so adds for one user, on any server sharing the
      // database, count and insert one after the other and never overshoot the bound together.
      await tx.query('SELECT 1 FROM users WHERE username = $1 FOR UPDATE', [username]);
      // Every server on the database hears of it (on `ITEM_CHANGES_CHANNEL`, once it is stored):
      // the user's item streams may be open on any of them.
      const { rows } = await tx.query<Pick<ItemRow, 'id' | 'title'>>(
        `WITH added AS (
           INSERT INTO items (owner, title) SELECT $1, $2 WHERE (SELECT count(*) FROM items WHERE owner = $1) < $4
           RETURNING id, title)
         SELECT id, title, pg_notify($3, $1) FROM added`,
        [username, title, ITEM_CHANGES_CHANNEL, MAX_ITEMS_PER_USER],
      );
      const row = rows[0];
      return row === undefined ? null : { id: row.id, title: row.title };
    });
  }

  /**
   * Adds users that do not exist yet (by username) with their items; returns the names added.
   *
   * @example
   * ```ts
   * await users.seed(DEMO_USERS); // ['alice', 'bob'] on first start, [] afterwards
   * ```
   */
  async seed(users: readonly NewUser[]): Promise<string[]> {
    const added: string[] = [];
    for (const user of users) {
      const exists = await this.db.query('SELECT 1 FROM users WHERE username = $1', [user.username]);
      if (exists.rows.length > 0) continue;
      const hash = await hashPassword(user.password);
      // Another process seeding the same server at once may have added the user meanwhile.
      const inserted = await this.db.transaction(async (tx) => {
        const { rows } = await tx.query(
          'INSERT INTO users (username, full_name, email, password_hash, scopes) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (username) DO NOTHING RETURNING username',
          [user.username, user.fullName, user.email, hash, user.scopes],
        );
        if (rows.length === 0) return false;
        for (const title of user.items) {
          await tx.query('INSERT INTO items (owner, title) VALUES ($1, $2)', [user.username, title]);
        }
        return true;
      });
      if (inserted) added.push(user.username);
    }
    return added;
  }
}

type PublicUserRow = Omit<UserRow, 'password_hash'>;

// PostgreSQL text cannot hold U+0000: no stored username has one, so none is looked up.
const storable = (text: string) => !text.includes('\0');

const toUser = (row: PublicUserRow): User => ({
  username: row.username,
  fullName: row.full_name,
  email: row.email,
  scopes: row.scopes,
});
