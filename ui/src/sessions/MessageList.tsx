// The transcript, virtualised, oldest at the top. It opens at the newest message (or at
// a jump target), and scrolling up near the top loads the page before. `anchorTo: "end"`
// keeps the message being read in place when older ones are prepended.
// Keyboard: arrows or j/k move between messages, Enter remembers the focused one,
// Escape goes back to the list. Tool activity sits in the row of the message it followed
// (activity before the first message: in that message's row, above it), as its own
// button, so the keys above ignore it; rows are re-measured when it (or a folded code
// block in a message) opens or closes.
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { useTranslation } from "react-i18next";
import type { TranscriptMessage } from "../ipc";
import { ActivityDisclosure } from "./ActivityDisclosure";
import { TranscriptListContext, type TranscriptListParts } from "./markdown/rowContext";
import { MessageRow } from "./MessageRow";
import type { ActivityMap } from "./useActivity";
import type { JumpTarget } from "./navigation";

const ESTIMATED_ROW_PX = 120;
/** Load the older page when this few rows remain above the rendered range. */
const PREFETCH_ROWS = 3;

interface Props {
  label: string;
  describedBy: string;
  messages: TranscriptMessage[];
  /** Tool calls by the index of the message they followed (-1: before the first). */
  activity: ActivityMap;
  hasOlder: boolean;
  isFetchingOlder: boolean;
  fetchOlder: () => void;
  target: JumpTarget | null;
  onTargetMissing: () => void;
  onRemember: (message: TranscriptMessage, selection: string | null) => void;
  onBack: () => void;
}

function matches(message: TranscriptMessage, target: JumpTarget) {
  return "index" in target ? message.index === target.index : message.messageId === target.messageId;
}

export function MessageList(props: Props) {
  const { messages, hasOlder, isFetchingOlder, fetchOlder } = props;
  const { t } = useTranslation();
  const scrollRef = useRef<HTMLDivElement>(null);
  const offset = hasOlder ? 1 : 0; // row 0 is "Loading earlier messages…" while there are more
  const count = messages.length + offset;
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATED_ROW_PX,
    getItemKey: (row) => (row < offset ? "older" : messages[row - offset].index),
    overscan: 4,
    anchorTo: "end",
  });
  const rowOf = (index: number) => messages.findIndex((m) => m.index === index) + offset;

  // The jump (or the initial scroll to the newest message) runs once per open.
  const [pending, setPending] = useState<JumpTarget | "end" | null>(props.target ?? "end");
  const [focused, setFocused] = useState<number | null>(null);
  const [highlighted, setHighlighted] = useState<number | null>(null);
  const [selection, setSelection] = useState<{ index: number; text: string } | null>(null);
  // Kept here, not in the rows, so an open list stays open when its row scrolls out and back.
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(() => new Set());
  const toggleActivity = useCallback(
    (afterIndex: number) =>
      setExpanded((prev) => {
        const next = new Set(prev);
        if (!next.delete(afterIndex)) next.add(afterIndex);
        return next;
      }),
    [],
  );
  // The row's ResizeObserver catches the change too, a frame later; measuring at once
  // avoids a frame of overlapping rows (and works where there is no ResizeObserver).
  // measureElement would answer from its cache for a row it has seen, so resize it.
  const remeasure = useCallback(
    (element: HTMLElement) => {
      const row = element.closest<HTMLElement>(".list-item");
      if (row?.isConnected && row.dataset.index !== undefined)
        virtualizer.resizeItem(Number(row.dataset.index), row.offsetHeight);
    },
    [virtualizer],
  );
  // Unfolded code blocks ("<message index>:<offset>"), kept here like `expanded`.
  const [openBlocks, setOpenBlocks] = useState<ReadonlySet<string>>(() => new Set());
  const rowParts = useMemo<TranscriptListParts>(
    () => ({
      resized: remeasure,
      isBlockOpen: (blockId) => openBlocks.has(blockId),
      toggleBlock: (blockId) =>
        setOpenBlocks((prev) => {
          const next = new Set(prev);
          if (!next.delete(blockId)) next.add(blockId);
          return next;
        }),
    }),
    [remeasure, openBlocks],
  );
  const activityAfter = (afterIndex: number) => {
    const tools = props.activity.get(afterIndex);
    return tools ? (
      <ActivityDisclosure
        tools={tools}
        afterIndex={afterIndex}
        expanded={expanded.has(afterIndex)}
        onToggle={toggleActivity}
        onResize={remeasure}
      />
    ) : null;
  };
  const focusRequest = useRef<number | null>(null);
  // Older pages load only once the person has scrolled (the first position is set on
  // the next frame; until then the range looks like the top and would fetch at once).
  const [armed, setArmed] = useState(false);

  useLayoutEffect(() => {
    if (pending === null || messages.length === 0) return;
    if (pending === "end") {
      virtualizer.scrollToIndex(count - 1, { align: "end" });
      setPending(null);
      return;
    }
    const found = messages.find((m) => matches(m, pending));
    if (found) {
      virtualizer.scrollToIndex(rowOf(found.index), { align: "center" });
      setHighlighted(found.index);
      setFocused(found.index);
      focusRequest.current = found.index;
      setPending(null);
    } else if (hasOlder && ("messageId" in pending || messages[0].index > pending.index)) {
      if (!isFetchingOlder) fetchOlder();
    } else {
      props.onTargetMissing();
      setPending("end");
    }
  });

  // Move focus to a requested message once its row is rendered.
  useEffect(() => {
    const index = focusRequest.current;
    if (index === null) return;
    const element = scrollRef.current?.querySelector<HTMLElement>(`[data-message-index="${index}"]`);
    if (element) {
      focusRequest.current = null;
      element.focus({ preventScroll: true });
    }
  });

  const items = virtualizer.getVirtualItems();
  const firstRow = items.length > 0 ? items[0].index : -1;
  const fits = virtualizer.getTotalSize() <= (scrollRef.current?.clientHeight ?? 0);
  useEffect(() => {
    if (pending !== null || !hasOlder || isFetchingOlder || !(armed || fits)) return;
    if (firstRow >= 0 && firstRow <= PREFETCH_ROWS) fetchOlder();
  }, [pending, hasOlder, isFetchingOlder, armed, fits, firstRow, fetchOlder]);

  const moveFocus = (delta: number) => {
    const current = focused === null ? messages.length - 1 : messages.findIndex((m) => m.index === focused);
    const next = Math.min(messages.length - 1, Math.max(0, current + delta));
    if (next === current && delta < 0 && hasOlder && !isFetchingOlder) fetchOlder();
    const index = messages[next].index;
    setFocused(index);
    focusRequest.current = index;
    virtualizer.scrollToIndex(next + offset, { align: "auto" });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const target = event.target as HTMLElement;
    if (target.closest("button, input, textarea, select") || event.altKey || event.ctrlKey || event.metaKey) return;
    if (messages.length === 0) return;
    if (event.key === "ArrowDown" || event.key === "j") moveFocus(1);
    else if (event.key === "ArrowUp" || event.key === "k") moveFocus(-1);
    else if (event.key === "Enter" && target.matches("[data-message-index]")) {
      const message = messages.find((m) => m.index === Number(target.dataset.messageIndex));
      if (message) props.onRemember(message, selection?.index === message.index ? selection.text : null);
    } else if (event.key === "Escape") props.onBack();
    else return;
    event.preventDefault();
  };

  const tabbable = focused ?? messages[messages.length - 1]?.index;
  return (
    <div
      ref={scrollRef}
      className="list-scroll transcript-scroll"
      role="region"
      aria-label={props.label}
      aria-describedby={props.describedBy}
      onKeyDown={onKeyDown}
      onScroll={() => {
        if (pending === null && (scrollRef.current?.scrollTop ?? 0) > 0) setArmed(true);
      }}
    >
      <TranscriptListContext.Provider value={rowParts}>
        <ul className="list" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const message = messages[item.index - offset];
            return (
              <li
                key={item.key}
                ref={virtualizer.measureElement}
                data-index={item.index}
                className="list-item"
                style={{ transform: `translateY(${item.start}px)` }}
              >
                {message ? (
                  <>
                    {message.index === 0 && activityAfter(-1)}
                    <MessageRow
                      message={message}
                      tabbable={message.index === tabbable}
                      highlighted={message.index === highlighted}
                      selection={selection?.index === message.index ? selection.text : null}
                      onSelection={(index, text) =>
                        setSelection((prev) => (text ? { index, text } : prev?.index === index ? null : prev))
                      }
                      onRemember={props.onRemember}
                      onFocusMessage={setFocused}
                    />
                    {activityAfter(message.index)}
                  </>
                ) : (
                  <p className="list-loader" role="status">
                    {t("transcript.loadingOlder")}
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      </TranscriptListContext.Provider>
    </div>
  );
}
