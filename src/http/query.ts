/** Reading query parameters strictly: a repeated parameter is a 400, not a silent pick. */
import { errors } from '../api/errors.js';

/** The single string value of query parameter `name`, or undefined; throws 400 when repeated. */
export function queryString(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw errors.badRequest(`query parameter '${name}' must be given once`);
  return value;
}

/**
 * A numeric query parameter as the value the core validates (search state's skip and limit): absent
 * or "" is undefined (the core's default), a decimal number is that number, anything else is passed
 * on as the string. No range check here on purpose: the core checks the value once, so the detail
 * of a bad value is the same over HTTP and in local mode. Throws 400 when repeated.
 */
export function queryNumber(query: unknown, name: string): number | string | undefined {
  const raw = queryString(query, name);
  if (raw === undefined || raw === '') return undefined;
  return /^-?\d{1,15}(\.\d{1,15})?$/.test(raw) ? Number(raw) : raw;
}
