// "Confirmed in Memory Bank · proposed by Claude Code": how a memory came to exist.
import type { TFunction } from "i18next";
import { clientName } from "../inbox/clientName";
import type { Memory } from "../ipc";

/** null for memories saved before this was recorded. */
export function confirmedText(memory: Pick<Memory, "confirmedVia" | "proposedBy">, t: TFunction): string | null {
  const client = memory.proposedBy ? clientName(memory.proposedBy) : null;
  switch (memory.confirmedVia) {
    case "app":
      return client ? t("row.confirmedAppBy", { client }) : t("row.confirmedApp");
    case "elicitation":
      return client ? t("row.confirmedElicitation", { client }) : t("row.confirmedElicitationUnknown");
    case "cli":
      return t("row.confirmedCli");
    case "import":
      return t("row.confirmedImport");
    default:
      return null;
  }
}
