/**
 * The `info` string of a part image and its `position` field: pure parsing and validation
 * (api-spec.md §2.2, §7, §9; api-decisions.md §4). No I/O; every function returns all problems at
 * once instead of stopping at the first.
 */

/**
 * The allowed info tokens, in the wording used in error messages (decisions §4):
 * `searchable`, `display`, `weight=<number>`, `position=<integer >= 0>` (deprecated, spec §9).
 */
export const ALLOWED_INFO_TOKENS: readonly string[] = ['searchable', 'display', 'weight=<number>', 'position=<integer >= 0>'];

/** `allowed tokens: searchable, display, weight=<number>, position=<integer >= 0>`, appended to token errors. */
const ALLOWED_SUFFIX = `allowed tokens: ${ALLOWED_INFO_TOKENS.join(', ')}`;

/**
 * A valid, parsed `info` string (spec §2.2).
 *
 * - `searchable`: the token `searchable` is present (reference image for image search).
 * - `display`: the token `display` is present (image shown in the UI; takes part in display order).
 * - `weight`: the value of `weight=<number>` (finite, may be negative or fractional; `-0` is stored as `0`).
 * - `positionToken`: the value of the deprecated `position=<integer >= 0>` token. NOT the `position` field.
 * - `tokens`: the tokens exactly as written, in their original order (whitespace-split).
 *
 * When both `weight` and `positionToken` are set, `weight` is the priority (spec §2.2); see {@link priorityOf}.
 */
export interface ParsedInfo {
  searchable: boolean;
  display: boolean;
  weight?: number;
  positionToken?: number;
  tokens: string[];
}

/** Result of {@link parseImageInfo}: the parsed info, or every problem found (at least one message). */
export type ParseInfoResult = { ok: true; info: ParsedInfo } | { ok: false; messages: string[] };

/** A finite decimal: optional sign, digits with an optional fraction (`3`, `-0.5`, `.25`, `2.`); no exponent, no hex. */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
/** A non-negative integer written with digits only (leading zeros allowed). */
const NON_NEGATIVE_INTEGER = /^\d+$/;

/**
 * Parses and validates an image's `info` string (spec §2.2 token table; decisions §4).
 *
 * Tokens are separated by runs of whitespace; leading and trailing whitespace is ignored. Tokens
 * are case-sensitive. Problems reported (all of them, in token order, one message each):
 * - empty info (no tokens): `info must not be empty; allowed tokens: ...`
 * - unknown token: `unknown info token '<tok>'; allowed tokens: ...`
 * - malformed `weight=` value (not a finite decimal number): `info token '<tok>': weight must be a finite decimal number`
 * - malformed `position=` value (not an integer >= 0): `info token '<tok>': position must be an integer >= 0`
 * - `weight` / `position` without `=value`: `info token '<tok>' needs a value: weight=<number>` (resp. position=...)
 * - a token kind repeated (`display display`, `weight=1 weight=2`): `duplicate info token '<tok>'`
 *
 * A `weight=`/`position=` token without `display` is accepted (it has no effect on display order).
 * Never throws (a non-string argument is reported as `info must be a string`).
 */
export function parseImageInfo(info: string): ParseInfoResult {
  if (typeof info !== 'string') return { ok: false, messages: ['info must be a string'] };
  const tokens = info.split(/\s+/).filter((t) => t.length > 0);
  if (tokens.length === 0) return { ok: false, messages: [`info must not be empty; ${ALLOWED_SUFFIX}`] };

  const messages: string[] = [];
  const seen = new Set<string>();
  const result: ParsedInfo = { searchable: false, display: false, tokens };
  const markSeen = (kind: string, token: string): boolean => {
    if (seen.has(kind)) {
      messages.push(`duplicate info token '${token}'`);
      return false;
    }
    seen.add(kind);
    return true;
  };

  for (const token of tokens) {
    const eq = token.indexOf('=');
    const key = eq === -1 ? token : token.slice(0, eq);
    const value = eq === -1 ? undefined : token.slice(eq + 1);
    if (eq === -1 && (key === 'searchable' || key === 'display')) {
      if (markSeen(key, token)) result[key] = true;
    } else if (key === 'weight' || key === 'position') {
      const first = markSeen(key, token);
      if (value === undefined) {
        messages.push(`info token '${token}' needs a value: ${key === 'weight' ? 'weight=<number>' : 'position=<integer >= 0>'}`);
        continue;
      }
      if (key === 'weight') {
        const n = DECIMAL.test(value) ? Number(value) : Number.NaN;
        if (!Number.isFinite(n)) messages.push(`info token '${token}': weight must be a finite decimal number`);
        else if (first) result.weight = n === 0 ? 0 : n;
      } else {
        const n = NON_NEGATIVE_INTEGER.test(value) ? Number(value) : Number.NaN;
        if (!Number.isSafeInteger(n)) messages.push(`info token '${token}': position must be an integer >= 0`);
        else if (first) result.positionToken = n;
      }
    } else {
      messages.push(`unknown info token '${token}'; ${ALLOWED_SUFFIX}`);
    }
  }
  return messages.length > 0 ? { ok: false, messages } : { ok: true, info: result };
}

/**
 * The priority value of an image for display order rule 3 (spec §2.2): `weight` when present
 * (it wins over the deprecated `position=` token), else `positionToken`, else `undefined`.
 */
export function priorityOf(info: ParsedInfo): number | undefined {
  return info.weight ?? info.positionToken;
}

/**
 * Validates the `position` FIELD of an image definition (spec §2.2, §8; decisions §4).
 *
 * `position` is the raw value from the request: `undefined` or `null` means "not set" and yields no
 * messages. Otherwise it must be a (safe) integer >= 1: `position must be an integer >= 1`; and the
 * image's info must contain `display`: `position is only allowed when info contains the token display`.
 * Pass `info` = `undefined` when the info itself is invalid (its errors are reported by
 * {@link parseImageInfo}); then only the number is checked. Returns all messages (empty = valid).
 * The role check is separate (see {@link POSITION_ROLE_ERROR}). Never throws.
 */
export function validateImagePosition(position: unknown, info: ParsedInfo | undefined): string[] {
  if (position === undefined || position === null) return [];
  const messages: string[] = [];
  if (typeof position !== 'number' || !Number.isSafeInteger(position) || position < 1) {
    messages.push('position must be an integer >= 1');
  }
  if (info !== undefined && !info.display) {
    messages.push('position is only allowed when info contains the token display');
  }
  return messages;
}

/**
 * The exact error entry for an image definition that sets `position` without the role
 * dataContributor or dataValidator (spec §2.2, §7): `image '<image_id>' only authorized roles can set position`.
 */
export function POSITION_ROLE_ERROR(imageId: string): string {
  return `image '${imageId}' only authorized roles can set position`;
}
