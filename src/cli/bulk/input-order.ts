/**
 * Puts the rejected rows of a bulk run back into input order ("the errors file is in input
 * line order"). Batches in flight at once (`--concurrency`) may finish in any order, and rows
 * rejected while reading run ahead of earlier batches still in flight; a rejection is held until
 * every batch holding an earlier line has finished, then released in line order.
 * Memory: the rejections of the batches in flight and of the rows read meanwhile.
 */
export class InputOrder {
  /** Held rejections, sorted by line. */
  private held: { line: number; release: () => Promise<void> }[] = [];
  /** First line of each batch in flight, by batch index. */
  private readonly open = new Map<number, number>();

  /** A batch whose first row is at `firstLine` is being filled or is sent: later rejections wait for it. */
  begin(batch: number, firstLine: number): void {
    this.open.set(batch, firstLine);
  }

  /** The batch finished (or failed): releases what no earlier batch holds back. */
  async end(batch: number): Promise<void> {
    this.open.delete(batch);
    await this.release();
  }

  /** A rejection at `line`; `release` (writing it out) runs once every earlier line is settled. */
  async add(line: number, release: () => Promise<void>): Promise<void> {
    let i = this.held.length;
    while (i > 0 && (this.held[i - 1]?.line ?? 0) > line) i--;
    this.held.splice(i, 0, { line, release });
    await this.release();
  }

  /** Releases everything still held (the run is over), in line order. */
  async drain(): Promise<void> {
    this.open.clear();
    await this.release();
  }

  private async release(): Promise<void> {
    const watermark = Math.min(Number.POSITIVE_INFINITY, ...this.open.values());
    while (this.held.length > 0 && (this.held[0]?.line ?? 0) < watermark) {
      const next = this.held.shift();
      if (next) await next.release();
    }
  }
}
