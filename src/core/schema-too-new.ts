/**
 * A database written by a newer catalog: its schema version is above the newest this program
 * knows. Not a bug but the environment (an older `catalog` pointed at a catalog a newer one
 * migrated, e.g. after a rollback or on a second machine): the CLI reports it as a usage error
 * naming the database (src/cli/environment-errors.ts, exit 2), and nothing is changed in it.
 */
export class SchemaTooNewError extends Error {
  /**
   * @param database what was opened, as the message names it: "the catalog database", "the
   *   session database /data/sessions.db"
   * @param found the database's schema version
   * @param supported the newest schema version this program knows
   * @param inDataDirectory the database is the data directory's catalog.db, which the CLI names by
   *   its data directory ({@link messageIn}); false when `database` names its location already
   */
  constructor(
    readonly database: string,
    readonly found: number,
    readonly supported: number,
    readonly inDataDirectory = false,
  ) {
    super(schemaTooNewMessage(database, found, supported));
    this.name = 'SchemaTooNewError';
  }

  /** The message with `where` (e.g. " in data directory /data") after the database's name, when it is the data directory's. */
  messageIn(where: string): string {
    return this.inDataDirectory ? schemaTooNewMessage(`${this.database}${where}`, this.found, this.supported) : this.message;
  }
}

function schemaTooNewMessage(database: string, found: number, supported: number): string {
  return `${database} has schema version ${found}, newer than this program's ${supported}: a newer catalog wrote it; upgrade catalog (or use the version that wrote it)`;
}
