import { describe, expect, it } from 'vitest';
import { preparedStatementsOff } from './database.js';
import { StatementNames } from './prepared-client.js';

describe('StatementNames', () => {
  it('names each distinct text once, in the order first seen', () => {
    const names = new StatementNames();
    expect(names.nameOf('SELECT $1')).toBe('catalog_1');
    expect(names.nameOf('SELECT $2')).toBe('catalog_2');
    expect(names.nameOf('SELECT $1')).toBe('catalog_1');
  });

  it('names no text past its bound (a text built with values inside it must not prepare a statement per call)', () => {
    const names = new StatementNames(2);
    expect(names.nameOf('a $1')).toBe('catalog_1');
    expect(names.nameOf('b $1')).toBe('catalog_2');
    expect(names.nameOf('c $1')).toBeUndefined();
    expect(names.nameOf('a $1')).toBe('catalog_1');
  });

  it('names a retired text no more (its prepared statements were refused), and gives its name to no other', () => {
    const names = new StatementNames();
    expect(names.nameOf('a $1')).toBe('catalog_1');
    names.retire('a $1');
    expect(names.nameOf('a $1')).toBeUndefined();
    expect(names.nameOf('b $1')).toBe('catalog_2');
  });
});

describe('preparedStatementsOff', () => {
  it('reads prepared_statements from the database URL', () => {
    expect(preparedStatementsOff('postgres://u:p@db:5432/catalog')).toBe(false);
    expect(preparedStatementsOff('postgres://u:p@db:5432/catalog?prepared_statements=false')).toBe(true);
    expect(preparedStatementsOff('postgres://u:p@db:5432/catalog?sslmode=require&prepared_statements=OFF')).toBe(true);
    expect(preparedStatementsOff('postgres://u:p@db:5432/catalog?prepared_statements=true')).toBe(false);
    expect(preparedStatementsOff('not a url')).toBe(false);
  });
});
