// Everything the app hangs on, in one place so tests mount exactly what main.tsx does.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { i18n as I18n } from "i18next";
import type { ReactNode } from "react";
import { I18nextProvider } from "react-i18next";
import { PendingDeletesProvider } from "../deletes/PendingDeletes";
import { ToastsProvider } from "../toasts/Toasts";

export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      // IPC errors are final answers from the backend (it already retried HTTP);
      // show them at once with a Retry button instead of spinning.
      queries: { retry: false },
    },
  });
}

interface Props {
  client: QueryClient;
  i18n: I18n;
  children: ReactNode;
}

export function Providers({ client, i18n, children }: Props) {
  return (
    <QueryClientProvider client={client}>
      <I18nextProvider i18n={i18n}>
        <ToastsProvider>
          <PendingDeletesProvider>{children}</PendingDeletesProvider>
        </ToastsProvider>
      </I18nextProvider>
    </QueryClientProvider>
  );
}
