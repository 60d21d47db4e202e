/**
 * The real Clock and Ids (ports of src/core/ports.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import type { Clock, Ids } from '../core/ports.js';

/** Wall-clock time in integer microseconds, strictly increasing within the process. */
export function systemClock(): Clock {
  let last = 0;
  // The wall clock when the monotonic clock read 0, as performance.timeOrigin is; the monotonic
  // clock itself from process.hrtime, not performance: the first use of the `performance` global
  // loads perf_hooks, ~1 ms of a one-shot `catalog search` (start-up).
  const originMicros = Date.now() * 1000 - Number(process.hrtime.bigint() / 1000n);
  return {
    nowMicros() {
      const now = originMicros + Number(process.hrtime.bigint() / 1000n);
      last = now > last ? now : last + 1;
      return last;
    },
  };
}

/** Bytes read from /dev/urandom at a time: 64 UUIDs' worth. */
const URANDOM_BATCH = 1024;
/** The bytes read and how many of them were used; undefined: not read yet, null: no /dev/urandom here. */
let urandom: { bytes: Buffer; used: number } | null | undefined;

/** 16 bytes of /dev/urandom (the kernel's generator, which OpenSSL's seeds from), or undefined where it cannot be read. */
function urandom16(): Buffer | undefined {
  if (urandom === null) return undefined;
  if (urandom === undefined || urandom.used + 16 > URANDOM_BATCH) {
    try {
      const fd = openSync('/dev/urandom', 'r');
      try {
        const bytes = Buffer.allocUnsafe(URANDOM_BATCH);
        if (readSync(fd, bytes, 0, URANDOM_BATCH, null) !== URANDOM_BATCH) throw new Error('short read');
        urandom = { bytes, used: 0 };
      } finally {
        closeSync(fd);
      }
    } catch {
      urandom = null;
      return undefined;
    }
  }
  const bytes = urandom.bytes.subarray(urandom.used, urandom.used + 16);
  urandom.used += 16;
  return bytes;
}

/**
 * A random (version 4) UUID, as crypto.randomUUID makes one: its random bits from /dev/urandom
 * where there is one, so a one-shot `catalog search` (its session id) does not load node:crypto
 * (~2.8 ms CPU of its start-up; the CLI bundle requires built-ins on first use,
 * scripts/bundle-cli.js); crypto.randomUUID elsewhere (Windows).
 */
export function randomUuid(): string {
  const bytes = urandom16();
  if (bytes === undefined) return randomUUID();
  bytes[6] = (bytes[6]! & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // variant 10xx (RFC 9562)
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Random UUIDs ({@link randomUuid}) and 32-byte base64url secrets prefixed `cat_` (so leaked tokens are recognisable). */
export function systemIds(): Ids {
  return {
    uuid: () => randomUuid(),
    secret: () => `cat_${randomBytes(32).toString('base64url')}`,
  };
}
