// The list, virtualised with @tanstack/react-virtual so 10 000 memories stay cheap.
// Rows have different heights, so each is measured once rendered. Only a window of
// pages is cached (useMemories.ts): rows above it are placeholders at their last
// measured height, so the scrollbar and the scroll position stay put. When the
// rendered range nears either end of the window, the page beyond is fetched; when it
// lands far above the window (the scrollbar dragged up), the page under it is fetched
// directly. Every memory is reachable by scrolling (mouse, or keyboard: the scroll area
// is focusable and tabbing through the delete buttons scrolls too).
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import type { Memory } from "../ipc";
import { MemoryRow } from "./MemoryRow";

/** Start fetching the next page when this many rows remain below the rendered range. */
const PREFETCH_ROWS = 10;
const ESTIMATED_ROW_PX = 96;

interface Props {
  label: string;
  memories: Memory[];
  /** Index of `memories[0]` in the whole list. */
  offset: number;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => void;
  hasPreviousPage: boolean;
  isFetchingPreviousPage: boolean;
  fetchPreviousPage: () => void;
  jumpTo: (index: number) => void;
  onDelete: (memory: Memory) => void;
  /** The org the list shows (edits are made there). */
  orgId: string;
}

export function MemoryList(props: Props) {
  const { memories, offset, hasNextPage, isFetchingNextPage, fetchNextPage } = props;
  const { hasPreviousPage, isFetchingPreviousPage, fetchPreviousPage, jumpTo } = props;
  const { t } = useTranslation();
  const scrollRef = useRef<HTMLDivElement>(null);
  // Heights of rows by index, so a row dropped from the cache keeps its place's height.
  const heights = useRef(new Map<number, number>());
  const end = offset + memories.length;
  // One extra row at the end shows "Loading more…" while there are more pages.
  const count = end + (hasNextPage ? 1 : 0);
  const rowAt = (index: number) => (index >= offset ? memories[index - offset] : undefined);
  // Stable callbacks: a new getItemKey makes the virtualiser lay out all `count` rows
  // again, which it otherwise did on every scroll frame.
  const estimateSize = useCallback((index: number) => heights.current.get(index) ?? ESTIMATED_ROW_PX, []);
  const getItemKey = useCallback(
    (index: number) =>
      (index >= offset ? memories[index - offset]?.id : undefined) ?? (index < offset ? `above-${index}` : "loader"),
    [memories, offset],
  );
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize,
    getItemKey,
    overscan: 5,
  });
  const items = virtualizer.getVirtualItems();
  const firstIndex = items.length > 0 ? items[0].index : -1;
  const lastIndex = items.length > 0 ? items[items.length - 1].index : -1;

  useEffect(() => {
    for (const item of items) if (item.index >= offset && item.index < end) heights.current.set(item.index, item.size);
  });

  useEffect(() => {
    if (lastIndex < 0 || isFetchingNextPage || isFetchingPreviousPage) return;
    if (lastIndex < offset) jumpTo(firstIndex);
    else if (hasPreviousPage && firstIndex < offset + PREFETCH_ROWS) fetchPreviousPage();
    else if (hasNextPage && lastIndex >= end - PREFETCH_ROWS) fetchNextPage();
  }, [
    firstIndex,
    lastIndex,
    offset,
    end,
    hasNextPage,
    isFetchingNextPage,
    fetchNextPage,
    hasPreviousPage,
    isFetchingPreviousPage,
    fetchPreviousPage,
    jumpTo,
  ]);

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
          const memory = rowAt(item.index);
          const common = {
            "data-index": item.index,
            "aria-setsize": hasNextPage ? -1 : count,
            "aria-posinset": item.index + 1,
          };
          // Positioning through React's style prop goes through the CSSOM, which a
          // strict style-src CSP allows (unlike style attributes in HTML).
          if (item.index < offset)
            // Not measured: it keeps the height the row had, until the row is back.
            return (
              <li
                key={item.key}
                {...common}
                className="list-item"
                style={{ transform: `translateY(${item.start}px)`, height: item.size }}
              >
                <p className="list-loader">{t("memory.loadingMore")}</p>
              </li>
            );
          return (
            <li
              key={item.key}
              ref={virtualizer.measureElement}
              {...common}
              className="list-item"
              style={{ transform: `translateY(${item.start}px)` }}
            >
              {memory ? (
                <MemoryRow memory={memory} orgId={props.orgId} onDelete={props.onDelete} />
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
