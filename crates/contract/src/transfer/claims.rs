//! What an import makes of a line's provenance. A file can say anything, so an import
//! never records a confirmation: every imported memory and revision says
//! `confirmedVia: "import"`, and what the line claimed (`confirmedVia`, `proposedBy`)
//! is kept beside it as [`ImportedFrom`], to be shown as the file's claim.
//!
//! An export of imported memories carries `confirmedVia: "import"` and the claim in
//! `importedFrom`; importing it keeps both as they are, so such a file imports into an
//! empty bank byte for byte the same. A first import changes exactly this: the line's
//! `confirmedVia` and `proposedBy` move into `importedFrom`.

use crate::limits::MAX_CITATION_ID_CHARS;
use crate::gate::{Gate, Layout};
use crate::wire::{ConfirmedVia, ImportedFrom};
use crate::FieldError;

/// The `confirmedVia` and `importedFrom` an imported memory (or revision, `proposed_by`
/// `None`) is stored with, from what its line said. `base` prefixes paths in errors
/// (`""` for the memory, `revisions[i]` for a revision).
pub(crate) fn as_imported(
    gate: &mut Gate,
    base: &str,
    confirmed_via: Option<ConfirmedVia>,
    proposed_by: Option<String>,
    imported_from: Option<ImportedFrom>,
) -> (Option<ConfirmedVia>, Option<ImportedFrom>) {
    let path = |field: &str| if base.is_empty() { field.to_owned() } else { format!("{base}.{field}") };
    let claim = match imported_from {
        Some(earlier) => {
            // An earlier import's claim: the line was exported from a bank that imported it.
            if confirmed_via.is_some_and(|via| via != ConfirmedVia::Import) || proposed_by.is_some() {
                let at = path("importedFrom");
                gate.error(FieldError::new(
                    at.clone(),
                    format!(
                        "{at} is what an earlier import kept of its file's claim, and comes with confirmedVia \"import\" \
                         and no proposedBy; this line claims both: keep one"
                    ),
                ));
            }
            let proposed_by = earlier.proposed_by.map(|p| gate.text(&path("importedFrom.proposedBy"), &p, MAX_CITATION_ID_CHARS, Layout::Line));
            ImportedFrom { confirmed_via: earlier.confirmed_via, proposed_by }
        }
        None => ImportedFrom {
            confirmed_via: confirmed_via.filter(|via| *via != ConfirmedVia::Import),
            proposed_by: proposed_by.map(|p| gate.text(&path("proposedBy"), &p, MAX_CITATION_ID_CHARS, Layout::Line)),
        },
    };
    let claimed = claim.confirmed_via.is_some() || claim.proposed_by.is_some();
    (Some(ConfirmedVia::Import), claimed.then_some(claim))
}
