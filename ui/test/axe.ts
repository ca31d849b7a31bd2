// The accessibility check every screen test ends with.
import axe from "axe-core";
import { expect, vi } from "vitest";

/** No axe violations on the current document (colour contrast needs real CSS). */
export async function expectNoViolations() {
  // axe schedules its own work on timers; the screen is set up, so let real time run.
  vi.useRealTimers();
  const results = await axe.run(document, {
    rules: { "color-contrast": { enabled: false } },
    resultTypes: ["violations"],
  });
  const found = results.violations.map(
    (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(" | ")}`,
  );
  expect(found).toEqual([]);
}
