// What every page shares: its root element, and what to undo when the router leaves it.

export interface Page {
  root: HTMLElement;
  /** Registers cleanup (timers, streams) run when the page is left. */
  onLeave(fn: () => void): void;
  /** True once the page was left: late async work must not touch the DOM. */
  readonly left: boolean;
}
