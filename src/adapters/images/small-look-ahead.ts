/**
 * Small looks started ahead (docs/search.md): a query
 * photo's AKAZE features for the small references are computed beside its first look, on the core
 * that look leaves idle, so that a photo whose first answer is not confident does not wait for
 * them afterwards. One runs at a time (on the small look's own thread, at a background priority:
 * feature-threads.ts); a look asked for while another runs waits for it, and a waiting look whose
 * photo was answered meanwhile is dropped before it starts.
 */
import type { LocalFeatures } from '../../core/search/photo/local-features.js';

/** A small look started ahead of its photo's first answer. */
export interface AheadLook {
  /**
   * The photo's AKAZE features; undefined when they will not come from here (the extraction failed,
   * or a later photo's look took this one's place while it waited): the caller extracts them itself.
   */
  readonly features: Promise<LocalFeatures | undefined>;
  /** The photo's answer needs no small look: a look still waiting is dropped (a running one finishes). */
  drop(): void;
}

/** A look not yet finished: its photo and how to hand over its features. */
interface Entry {
  image: Uint8Array;
  settle(features: LocalFeatures | undefined): void;
}

/**
 * Runs small looks one at a time, in the order asked for, keeping at most one waiting (the
 * newest: an older waiting photo has been waiting longer than its own extraction would take).
 */
export class SmallLookAhead {
  /** Looks started (diagnostics). */
  started = 0;
  private running = false;
  private waiting: Entry | undefined;

  /** `describe`: computes a photo's AKAZE features (the feature threads' small look). */
  constructor(private readonly describe: (image: Uint8Array) => Promise<LocalFeatures>) {}

  /** Starts the small look of `image` now, or after the running one. */
  start(image: Uint8Array): AheadLook {
    let settle: (features: LocalFeatures | undefined) => void = () => undefined;
    const features = new Promise<LocalFeatures | undefined>((resolve) => {
      settle = resolve;
    });
    const entry: Entry = { image, settle };
    if (!this.running) this.run(entry);
    else {
      this.waiting?.settle(undefined);
      this.waiting = entry;
    }
    return {
      features,
      drop: () => {
        if (this.waiting !== entry) return;
        this.waiting = undefined;
        entry.settle(undefined);
      },
    };
  }

  private run(entry: Entry): void {
    this.running = true;
    this.started++;
    void this.describe(entry.image).then(
      (features) => entry.settle(features),
      () => entry.settle(undefined),
    ).finally(() => {
      this.running = false;
      const next = this.waiting;
      this.waiting = undefined;
      if (next) this.run(next);
    });
  }
}
