/**
 * The server's clock under control: the configured clock (`Date.now` unless a test passes its
 * own) plus an offset that `advance` and `set` move. Every part of the server reads this one.
 */

/**
 * A clock that can be moved forward, set to a time, and reset to its source.
 *
 * @example
 * const clock = new ControlledClock(Date.now);
 * clock.advance(60); // one minute later, for codes, tokens, sessions and keys alike
 */
export class ControlledClock {
  private offsetMs = 0;

  constructor(private readonly source: () => number) {}

  /** Epoch milliseconds; bound, so it can be handed around as a `now` function. */
  readonly now = (): number => this.source() + this.offsetMs;

  /** How far this clock is from its source, in seconds. */
  get offsetSeconds(): number {
    return this.offsetMs / 1000;
  }

  /**
   * Moves the clock by `seconds` (fractions allowed; negative moves it back).
   *
   * @example
   * clock.advance(3601); // every access token of the default lifetime has expired
   */
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }

  /**
   * Sets the clock to `epochMs`; it keeps running from there.
   *
   * @example
   * clock.set(Date.UTC(2030, 0, 1));
   */
  set(epochMs: number): void {
    this.offsetMs = epochMs - this.source();
  }

  /**
   * Back to the source clock.
   *
   * @example
   * clock.reset();
   */
  reset(): void {
    this.offsetMs = 0;
  }
}
