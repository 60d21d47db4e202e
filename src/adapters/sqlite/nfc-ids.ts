/**
 * SQL functions of the migration that rewrites stored ids to Unicode NFC
 * (docs/decisions/0017-ids-are-nfc.md): SQLite has no Unicode normalisation of its own, so the
 * migration calls these, registered on its connection.
 */
import { normalizeId } from '../../api/schemas.js';
import { IdCollisionError, idCollisionMessage } from '../../core/id-collision.js';
import { decodeAttributes, encodeAttributes } from './part-rows.js';

/** `nfc_id(text)`: the id in NFC; NULL stays NULL. */
function nfcId(id: unknown): unknown {
  return typeof id === 'string' ? normalizeId(id) : id;
}

/** `nfc_attributes(parts.attributes)`: the stored attributes JSON (either form) with attribute ids and organizations in NFC. */
function nfcAttributes(stored: unknown): unknown {
  if (typeof stored !== 'string') return stored;
  const attributes = decodeAttributes(stored);
  let changed = false;
  const normalized = attributes.map((attribute) => {
    const values = attribute.values.map((value) => {
      if (typeof value.organization !== 'string' || normalizeId(value.organization) === value.organization) return value;
      changed = true;
      return { ...value, organization: normalizeId(value.organization) };
    });
    const attributeId = normalizeId(attribute.attribute_id);
    if (attributeId !== attribute.attribute_id) changed = true;
    return { ...attribute, attribute_id: attributeId, values };
  });
  return changed ? encodeAttributes(normalized) : stored;
}

/**
 * `nfc_collision(table, spellings)`: throws IdCollisionError; `spellings` is SQLite's
 * group_concat of the colliding ids with a U+0000 separator (ids never contain it).
 */
function nfcCollision(table: unknown, spellings: unknown): never {
  const ids = String(spellings).split('\u0000');
  throw new IdCollisionError(idCollisionMessage(String(table), ids, normalizeId(ids[0] ?? '')));
}

/** The functions the NFC migration's SQL calls, by SQL name. */
export const NFC_MIGRATION_FUNCTIONS: Readonly<Record<string, (...args: unknown[]) => unknown>> = {
  nfc_id: nfcId,
  nfc_attributes: nfcAttributes,
  nfc_collision: nfcCollision as (...args: unknown[]) => unknown,
};
