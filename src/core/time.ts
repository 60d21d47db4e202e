/**
 * Timestamps (decisions §1): stored as integer microseconds since the epoch, shown as ISO 8601 UTC
 * with six fractional digits, e.g. `2026-11-21T20:29:30.123456Z`.
 */

/** Formats integer microseconds since the epoch as ISO 8601 UTC with microseconds. */
export function formatMicros(micros: number): string {
  const millis = Math.floor(micros / 1000);
  const iso = new Date(millis).toISOString(); // 2026-11-21T20:29:30.123Z
  const fraction = String(((micros % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, '0');
  return `${iso.slice(0, 19)}.${fraction}Z`;
}
