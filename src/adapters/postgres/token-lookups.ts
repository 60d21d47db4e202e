/**
 * The token reads of concurrent requests, one statement per batch. Every request reads its token
 * first (core/request-scope.ts), so under load token reads are the most frequent statement of
 * `catalog serve` on PostgreSQL, and sending and answering each costs this process and PostgreSQL
 * more CPU than the lookup itself (docs/decisions/0058). A request that arrives while a read is on its way
 * joins the next one, which is sent after every request in it arrived: each still sees every
 * revocation committed before it came.
 */
import { Batches } from '../../core/batches.js';
import type { TokenColumns } from '../rows.js';
import type { PgDatabase } from './database.js';

/** Most tokens one statement reads. */
const MAX_BATCH = 256;

/** A token's row (null columns when no token has the hash) and the settings version read with it. */
export type TokenLookupRow = { [K in keyof TokenColumns]: TokenColumns[K] | null } & { settings_version: number };

interface WaitingLookup {
  secretHash: string;
  resolve: (row: TokenLookupRow) => void;
  reject: (error: unknown) => void;
}

/** Reads tokens by secret hash in batches ({@link find}). */
export class TokenLookups {
  private readonly batches = new Batches<WaitingLookup>(MAX_BATCH, (batch) => this.read(batch), false);

  /** `settingsVersion`: a scalar subquery giving the settings version read with each token. */
  constructor(private readonly db: PgDatabase, private readonly settingsVersion: string) {}

  /** The row of the token whose secret hashes to `secretHash` (its columns null when there is none), read in the next batch. Rejects with the driver's error. */
  find(secretHash: string): Promise<TokenLookupRow> {
    return new Promise((resolve, reject) => this.batches.add({ secretHash, resolve, reject }));
  }

  private async read(batch: readonly WaitingLookup[]): Promise<void> {
    try {
      const rows = await this.db.query<TokenLookupRow & { i: string }>(
        `SELECT u.i, t.*, ${this.settingsVersion} AS settings_version
         FROM unnest($1::text[]) WITH ORDINALITY AS u(secret_hash, i) LEFT JOIN tokens t ON t.secret_hash = u.secret_hash`,
        [batch.map((w) => w.secretHash)],
      );
      const byIndex = new Map(rows.map((row) => [Number(row.i), row]));
      batch.forEach((w, index) => {
        const row = byIndex.get(index + 1);
        if (row) w.resolve(row);
        else w.reject(new Error('token lookup: a batch row is missing'));
      });
    } catch (error) {
      for (const w of batch) w.reject(error);
    }
  }
}
