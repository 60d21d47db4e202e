/**
 * Request bodies refused before any parser or validator walks them (docs/api.md, Wire): JSON
 * nested deeper than MAX_JSON_DEPTH, and multipart boundaries longer than RFC 2046 allows.
 */

/** Deepest nesting of arrays and objects a JSON body may have; the API's deepest request needs ~6. */
export const MAX_JSON_DEPTH = 64;

/** RFC 2046 §5.1.1: a boundary is 1 to 70 characters. */
export const MAX_MULTIPART_BOUNDARY = 70;

/**
 * Why `body` (a parsed JSON value) is nested too deeply, or undefined. Iterative, so a body of any
 * depth is measured without recursion; stops at the first path deeper than MAX_JSON_DEPTH.
 */
export function jsonDepthProblem(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const stack: [unknown, number][] = [[body, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (depth > MAX_JSON_DEPTH) return `the JSON body is nested more than ${MAX_JSON_DEPTH} levels deep (arrays and objects); no request of this API needs that`;
    const children = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return undefined;
}

/** Why a multipart Content-Type's boundary is refused (longer than RFC 2046 allows), or undefined. */
export function multipartBoundaryProblem(contentType: string | undefined): string | undefined {
  if (contentType === undefined || !/^\s*multipart\//i.test(contentType)) return undefined;
  const match = /;\s*boundary=("([^"]*)"|[^;\s]*)/i.exec(contentType);
  const boundary = match ? (match[2] ?? match[1] ?? '') : '';
  if (boundary.length > MAX_MULTIPART_BOUNDARY) return `the multipart boundary is ${boundary.length} characters long, over the ${MAX_MULTIPART_BOUNDARY} that RFC 2046 allows`;
  return undefined;
}
