/**
 * Two stored ids of one table with the same Unicode NFC form, found by the migration that
 * rewrites ids to NFC (docs/decisions/0017-ids-are-nfc.md). Not a bug but the catalog's data: the
 * message names both spellings and the table, nothing was changed, and the CLI reports it as an
 * error (src/cli/environment-errors.ts, exit 1) so a person decides which id survives.
 */
export class IdCollisionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdCollisionError';
  }
}

/** The message of an {@link IdCollisionError}: `table` holds `spellings` (two or more), one id `nfc` in NFC. */
export function idCollisionMessage(table: string, spellings: readonly string[], nfc: string): string {
  return (
    `cannot migrate the catalog to NFC ids: ${table} holds ${spellings.map((s) => JSON.stringify(s)).join(' and ')}, ` +
    `which are one id in Unicode NFC (${JSON.stringify(nfc)}); ` +
    'rename or delete one of them with the previous version of catalog, then open the catalog again (nothing was changed)'
  );
}
