// The backend's AppState as a query, and the commands that change it. Each command
// returns the new AppState, which simply replaces the cached one.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { getState, type AppState } from "../ipc";
import { appStateKey } from "../memory/queryKeys";

export function useAppState() {
  return useQuery({ queryKey: appStateKey, queryFn: getState, staleTime: Infinity });
}

/** Wraps a command that returns AppState so its result lands in the cache. */
export function useAppStateCommand<Args>(command: (args: Args) => Promise<AppState>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: command,
    onSuccess: (state) => client.setQueryData(appStateKey, state),
  });
}
