// The list, virtualised with @tanstack/react-virtual so 10 000 memories stay cheap.
// Rows have different heights, so each is measured once rendered. When the rendered
// range gets near the end, the next cursor page is fetched: every memory is reachable
// by scrolling (mouse, or keyboard: the scroll area is focusable and tabbing through
// the delete buttons scrolls too).
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import type { Memory } from "../ipc";
import { MemoryRow } from "./MemoryRow";

/** Start fetching the next page when this many rows remain below the rendered range. */
const PREFETCH_ROWS = 10;
const ESTIMATED_ROW_PX = 96;

interface Props {
  label: string;
  memories: Memory[];
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => void;
  onDelete: (memory: Memory) => void;
}

export function MemoryList(props: Props) {
  const { memories, hasNextPage, isFetchingNextPage, fetchNextPage } = props;
  const { t } = useTranslation();
  const scrollRef = useRef<HTMLDivElement>(null);
  // One extra row at the end shows "Loading more…" while there are more pages.
  const count = memories.length + (hasNextPage ? 1 : 0);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATED_ROW_PX,
    getItemKey: (index) => memories[index]?.id ?? "loader",
    overscan: 5,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.length > 0 ? items[items.length - 1].index : -1;

  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && lastIndex >= memories.length - PREFETCH_ROWS) {
      fetchNextPage();
    }
  }, [hasNextPage, isFetchingNextPage, lastIndex, memories.length, fetchNextPage]);

  return (
    <div
      ref={scrollRef}
      className="list-scroll"
      role="region"
      aria-label={props.label}
      // Focusable so the keyboard can scroll it (PageDown, arrows).
      tabIndex={0}
    >
      <ul className="list" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => {
          const memory = memories[item.index];
          return (
            <li
              key={item.key}
              ref={virtualizer.measureElement}
              data-index={item.index}
              className="list-item"
              aria-setsize={hasNextPage ? -1 : memories.length}
              aria-posinset={item.index + 1}
              // Positioning through React's style prop goes through the CSSOM,
              // which a strict style-src CSP allows (unlike style attributes in HTML).
              style={{ transform: `translateY(${item.start}px)` }}
            >
              {memory ? (
                <MemoryRow memory={memory} onDelete={props.onDelete} />
              ) : (
                <p className="list-loader" role="status">
                  {t("memory.loadingMore")}
                </p>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
