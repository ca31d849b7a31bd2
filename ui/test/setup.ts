// Test environment: jsdom has no layout, so give the virtual list's scroll area and
// rows a size (600 px viewport, 80 px rows); clean the IPC mocks between tests.
import { cleanup } from "@testing-library/react";
import { clearMocks } from "@tauri-apps/api/mocks";
import { notifyManager } from "@tanstack/react-query";
import { afterEach, vi } from "vitest";

// TanStack Query batches its notifications with setTimeout(0). Under fake timers a 0 ms
// timer set during a tick lands 1 ms later, so settling would move the clock; run the
// batches as microtasks instead and the clock only moves when a test says so.
notifyManager.setScheduler(queueMicrotask);

// Testing Library drains its event wrapper with a setTimeout(0) that, under fake
// timers, only runs if it can advance them; it looks for Jest's API to do so.
Object.assign(globalThis, { jest: { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) } });

export const VIEWPORT_PX = 600;
export const ROW_PX = 80;

function sized(property: string, size: (element: HTMLElement) => number) {
  Object.defineProperty(HTMLElement.prototype, property, {
    configurable: true,
    get(this: HTMLElement) {
      return size(this);
    },
  });
}
sized("clientHeight", (el) => (el.classList.contains("list-scroll") ? VIEWPORT_PX : 0));
sized("clientWidth", (el) => (el.classList.contains("list-scroll") ? 800 : 0));
// The scroll area is as tall as its content (the virtual list sets that height).
sized("scrollHeight", (el) =>
  el.classList.contains("list-scroll")
    ? parseFloat((el.firstElementChild as HTMLElement | null)?.style.height ?? "") || 0
    : 0,
);
sized("offsetHeight", (el) => (el.classList.contains("list-item") ? ROW_PX : 0));
sized("offsetWidth", (el) => (el.classList.contains("list-item") ? 800 : 0));

// Without layout everything looks invisible to focus managers (Ariakit asks
// checkVisibility first); call an element visible unless it or an ancestor is hidden.
Object.assign(Element.prototype, {
  checkVisibility(this: Element) {
    return this.isConnected && !this.closest("[hidden]");
  },
});

// jsdom lacks pointer capture, which Radix's swipe-to-dismiss calls on pointer moves.
// …and scrollIntoView, which focus managers call when moving focus.
Object.assign(Element.prototype, {
  scrollIntoView: () => {},
  hasPointerCapture: () => false,
  setPointerCapture: () => {},
  releasePointerCapture: () => {},
});

// jsdom has no Element.scrollTo; the virtualiser scrolls with it (scrollToIndex). Set
// the offset and report the scroll, as a browser would.
Object.assign(Element.prototype, {
  scrollTo(this: Element, options?: ScrollToOptions | number, y?: number) {
    const top = typeof options === "number" ? y : options?.top;
    if (top !== undefined) this.scrollTop = Math.max(0, top);
    this.dispatchEvent(new Event("scroll"));
  },
});

// Clipboard exists only in secure browser contexts; tests replace writeText per case.
Object.defineProperty(navigator, "clipboard", {
  configurable: true,
  value: { writeText: () => Promise.resolve() },
});

afterEach(() => {
  cleanup();
  clearMocks();
  vi.useRealTimers();
});
