/** Reading query parameters strictly: a repeated parameter is a 400, not a silent pick. */
import { errors } from '../api/errors.js';

/** The single string value of query parameter `name`, or undefined; throws 400 when repeated. */
export function queryString(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw errors.badRequest(`query parameter '${name}' must be given once`);
  return value;
}

/** An integer query parameter within [min, max], or `fallback`; throws 400 naming the parameter. */
export function queryInt(query: unknown, name: string, fallback: number, min: number, max: number): number {
  const raw = queryString(query, name);
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw)) throw errors.badRequest(`query parameter '${name}' must be an integer, got '${raw.slice(0, 50)}'`);
  const value = Number(raw);
  if (value < min || value > max) throw errors.badRequest(`query parameter '${name}' must be between ${min} and ${max}, got ${value}`);
  return value;
}
