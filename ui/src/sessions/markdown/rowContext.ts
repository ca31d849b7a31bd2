// What the parts of a transcript row need from the list around them. The transcript is a
// virtual list: rows are positioned by their measured height and unmounted when they
// scroll out of view. So a part that changes its own height (a code block unfolding)
// reports it, for the rows below to move in the same frame instead of overlapping it for
// one, and a block's unfolded state is kept by the list, for it to stay open when its
// row scrolls out and back (as tool activity does).
import { createContext, useContext, useState } from "react";

export interface TranscriptListParts {
  /** The element's height may have changed: re-measure its row now. */
  resized: (element: HTMLElement) => void;
  isBlockOpen: (blockId: string) => boolean;
  toggleBlock: (blockId: string) => void;
}

export const TranscriptListContext = createContext<TranscriptListParts | null>(null);

/** The index of the message being rendered, so a block's id is unique in the transcript. */
export const MessageIndexContext = createContext<number>(-1);

/**
 * Whether the block `localId` of the current message is unfolded, and a toggle. Kept by
 * the transcript list when there is one, else by the block itself.
 */
export function useBlockFold(localId: string): [boolean, () => void] {
  const list = useContext(TranscriptListContext);
  const blockId = `${useContext(MessageIndexContext)}:${localId}`;
  const [ownOpen, setOwnOpen] = useState(false);
  if (list) return [list.isBlockOpen(blockId), () => list.toggleBlock(blockId)];
  return [ownOpen, () => setOwnOpen((open) => !open)];
}

/** Reports a height change to the list (nothing outside a transcript list). */
export function useRowResized(): (element: HTMLElement) => void {
  return useContext(TranscriptListContext)?.resized ?? ignore;
}

const ignore = () => {};
