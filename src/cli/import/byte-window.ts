/**
 * The input bytes a CSV reader may still need: from the start of the first row it has not settled
 * (a broken row whose text is wanted whole) to the last byte handed to the parser. Positions are
 * absolute byte offsets in the input; lines are 1-based and end at `\n`, `\r\n` or a lone `\r`
 * (the line numbers csv-parse and the import messages use).
 */

/** A position at the start of a line. */
export interface LinePosition {
  /** Absolute byte offset. */
  byte: number;
  /** 1-based line number of the line starting there. */
  line: number;
}

const LF = 0x0a;
const CR = 0x0d;

/** Bytes of the input kept from some position on, in the chunks they were read in. */
export class ByteWindow {
  private chunks: Buffer[] = [];
  /** Absolute offset of the first byte of `chunks[0]`. */
  private start: number;
  /** Absolute offset just past the last byte appended. */
  private endOffset: number;

  /** @param start the absolute offset of the first byte that will be appended. */
  constructor(start: number) {
    this.start = start;
    this.endOffset = start;
  }

  /** Absolute offset just past the last byte appended. */
  get end(): number {
    return this.endOffset;
  }

  /** Keeps `chunk` (not copied: the caller must not change it). */
  append(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.endOffset += chunk.length;
  }

  /** Forgets whole chunks that end at or before `position` (the window never grows past one settled chunk). */
  dropBefore(position: number): void {
    while (this.chunks.length > 1) {
      const first = this.chunks[0] as Buffer;
      if (this.start + first.length > position) return;
      this.start += first.length;
      this.chunks.shift();
    }
  }

  /** The bytes in `[from, to)`, clamped to what the window holds. */
  slice(from: number, to: number = this.endOffset): Buffer {
    const parts: Buffer[] = [];
    let offset = this.start;
    for (const chunk of this.chunks) {
      const a = Math.max(from, offset) - offset;
      const b = Math.min(to, offset + chunk.length) - offset;
      if (b > a) parts.push(chunk.subarray(a, b));
      offset += chunk.length;
    }
    return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
  }

  /**
   * Where line `line` starts, counting line breaks from `from`. A `\r` as the very last byte held
   * counts as a break (a `\n` after it, not read yet, would only complete it).
   *
   * @returns the position, or the window's end when the input held ends before that line.
   */
  lineStart(from: LinePosition, line: number): LinePosition {
    let current = from.line;
    if (current >= line) return from;
    let offset = this.start;
    for (const chunk of this.chunks) {
      const chunkEnd = offset + chunk.length;
      if (chunkEnd <= from.byte) {
        offset = chunkEnd;
        continue;
      }
      for (let i = Math.max(0, from.byte - offset); i < chunk.length; i += 1) {
        const c = chunk[i];
        if (c === LF || (c === CR && this.byteAt(offset + i + 1) !== LF)) {
          current += 1;
          if (current === line) return { byte: offset + i + 1, line };
        }
      }
      offset = chunkEnd;
    }
    return { byte: this.endOffset, line: current };
  }

  private byteAt(position: number): number | undefined {
    let offset = this.start;
    for (const chunk of this.chunks) {
      if (position < offset + chunk.length) return position >= offset ? chunk[position - offset] : undefined;
      offset += chunk.length;
    }
    return undefined;
  }
}

/**
 * Splits a byte stream into lines (each with its line break), for the few lines read outside the
 * parser: after a row whose quote never closes, up to the next line that reads as a row.
 */
export class LineSplitter {
  private buffer: Buffer;
  private ended = false;

  /**
   * @param head bytes already read, starting at a line start.
   * @param next reads the next chunk of the input (undefined at its end).
   */
  constructor(head: Buffer, private readonly next: () => Promise<Buffer | undefined>) {
    this.buffer = head;
  }

  /**
   * The next line with its line break (undefined at the end of the input): `length` bytes of the
   * input. A line longer than `maxBytes` keeps only its first `maxBytes` bytes in `bytes`, with
   * `long: true` (the rest is read and dropped).
   */
  async line(maxBytes: number): Promise<{ bytes: Buffer; length: number; long: boolean } | undefined> {
    let kept: Buffer | undefined;
    let dropped = 0;
    for (;;) {
      const cut = this.breakEnd();
      if (cut !== undefined || this.ended) {
        const end = cut ?? this.buffer.length;
        if (end === 0 && kept === undefined) return undefined;
        const bytes = this.buffer.subarray(0, end);
        this.buffer = this.buffer.subarray(end);
        return { bytes: kept ?? bytes, length: dropped + end, long: kept !== undefined };
      }
      if (this.buffer.length > maxBytes) {
        kept ??= Buffer.from(this.buffer.subarray(0, maxBytes));
        dropped += this.buffer.length;
        this.buffer = this.buffer.subarray(this.buffer.length);
      }
      const chunk = await this.next();
      if (chunk === undefined) this.ended = true;
      else this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    }
  }

  /** The bytes read but not returned as lines (to be read again from here on). */
  rest(): Buffer {
    return this.buffer;
  }

  /** Offset just past the first line break in the buffer, or undefined when more input is needed to tell. */
  private breakEnd(): number | undefined {
    const lf = this.buffer.indexOf(LF);
    const cr = this.buffer.indexOf(CR);
    if (cr !== -1 && (lf === -1 || cr < lf)) {
      if (cr + 1 < this.buffer.length) return this.buffer[cr + 1] === LF ? cr + 2 : cr + 1;
      return this.ended ? cr + 1 : undefined;
    }
    return lf === -1 ? undefined : lf + 1;
  }
}
