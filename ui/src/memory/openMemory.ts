// Opening one memory in the panel from elsewhere (a session's "Remembered" marker). The
// App holds the memory shown and switches to Memories; the panel shows that memory alone
// with "Show all memories" until the person leaves it.
import { createContext, useContext } from "react";
import type { Memory } from "../ipc";

export type OpenMemoryFn = (memory: Memory) => void;

const OpenMemoryContext = createContext<OpenMemoryFn | null>(null);

export const OpenMemoryProvider = OpenMemoryContext.Provider;

/** null outside the app shell: callers then show no link. */
export function useOpenMemory(): OpenMemoryFn | null {
  return useContext(OpenMemoryContext);
}
