// "Confirmed in Memory Bank · proposed by Claude Code": how a memory came to exist. An
// imported memory was confirmed by nobody here: what its file says is shown as the
// file's claim ("Imported · the file says: …"), never as a confirmation.
import type { TFunction } from "i18next";
import { clientName } from "../inbox/clientName";
import type { Memory } from "../ipc";

type Provenance = Pick<Memory, "confirmedVia" | "proposedBy">;

/** null for memories saved before this was recorded. */
export function confirmedText(memory: Provenance & Pick<Memory, "importedFrom">, t: TFunction): string | null {
  if (memory.confirmedVia === "import") {
    const claim = memory.importedFrom ? claimText(memory.importedFrom, t) : null;
    return claim ? t("row.confirmedImportClaim", { claim }) : t("row.confirmedImport");
  }
  return viaText(memory, t);
}

function viaText(memory: Provenance, t: TFunction): string | null {
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

/** What an import file said, in the words the panel uses for a confirmation. */
function claimText(claim: Provenance, t: TFunction): string | null {
  const via = viaText(claim, t);
  if (via) return via;
  return claim.proposedBy ? t("row.claimProposedBy", { client: clientName(claim.proposedBy) }) : null;
}
