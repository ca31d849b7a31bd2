// Editing a memory in place and its history, with the caches kept right: an edited or
// restored memory replaces the old one in the org's list at once, and the org's
// searches refetch when next shown (the new wording may match other queries).
import { useQueryClient, type InfiniteData, type QueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import {
  editMemory,
  memoryRevisions,
  restoreRevision,
  type EditMemoryRequest,
  type ListResponse,
  type Memory,
  type Revision,
} from "../ipc";
import { listRoot, searchKeyPrefix } from "./queryKeys";

function replaceInCache(client: QueryClient, orgId: string, memory: Memory) {
  client.setQueriesData<InfiniteData<ListResponse>>({ queryKey: listRoot(orgId) }, (data) =>
    data
      ? {
          ...data,
          pages: data.pages.map((page) => ({
            ...page,
            memories: page.memories.map((m) => (m.id === memory.id ? memory : m)),
          })),
        }
      : data,
  );
  void client.invalidateQueries({ queryKey: searchKeyPrefix(orgId) });
}

/** The edit actions of one org's panel. */
export function useMemoryEdits(orgId: string) {
  const client = useQueryClient();
  const edit = useCallback(
    async (id: string, change: EditMemoryRequest): Promise<Memory> => {
      const memory = await editMemory({ orgId, id, edit: change });
      replaceInCache(client, orgId, memory);
      return memory;
    },
    [client, orgId],
  );
  const history = useCallback(
    async (id: string): Promise<Revision[]> => (await memoryRevisions({ orgId, id })).revisions,
    [orgId],
  );
  const restore = useCallback(
    async (id: string, revisionId: string): Promise<Memory> => {
      const memory = await restoreRevision({ orgId, id, revisionId });
      replaceInCache(client, orgId, memory);
      return memory;
    },
    [client, orgId],
  );
  return { edit, history, restore };
}

/** Tags as the person types them: comma-separated, blanks dropped. */
export function parseTags(text: string): string[] {
  return text
    .split(/[,，]/)
    .map((tag) => tag.trim())
    .filter((tag) => tag.length > 0);
}
