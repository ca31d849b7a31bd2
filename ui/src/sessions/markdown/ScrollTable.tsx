// A Markdown table scrolls sideways inside the message when it is wider than the
// transcript, instead of widening the whole row.
import type { ReactNode } from "react";

export function ScrollTable({ children }: { children?: ReactNode }) {
  return (
    <div className="md-table-scroll">
      <table>{children}</table>
    </div>
  );
}
