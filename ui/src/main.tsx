import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/App";
import { createQueryClient, Providers } from "./app/Providers";
import { createI18n } from "./i18n";
import "./styles/base.css";
import "./styles/panel.css";
import "./styles/toasts.css";
import "./styles/sessions.css";

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <Providers client={createQueryClient()} i18n={createI18n()}>
      <App />
    </Providers>
  </StrictMode>,
);
