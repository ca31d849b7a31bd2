//! The events the app emits to the window, by name, with their payloads (generated into
//! `ui/src/bindings.ts` as `EventTypes`).

/// A deferred delete settled (after every attempt); payload [`crate::deletes::Settled`].
pub const DELETE_SETTLED: &str = "memory-delete-settled";

/// The session index picked up new or changed sessions; no payload.
pub const SESSIONS_CHANGED: &str = "sessions-changed";

/// The pending proposals changed; payload [`crate::inbox::InboxChange`].
pub const INBOX_CHANGED: &str = "inbox-changed";

/// An export or import moved on; payload [`crate::transfer::TransferProgress`].
pub const TRANSFER_PROGRESS: &str = "transfer-progress";

/// Every event's TypeScript signature.
#[cfg(feature = "ts")]
pub(crate) fn signatures() -> Vec<crate::bindings::EventSignature> {
    use crate::bindings::EventSignature;
    vec![
        EventSignature::of::<crate::deletes::Settled>(DELETE_SETTLED),
        EventSignature::of::<()>(SESSIONS_CHANGED),
        EventSignature::of::<crate::inbox::InboxChange>(INBOX_CHANGED),
        EventSignature::of::<crate::transfer::TransferProgress>(TRANSFER_PROGRESS),
    ]
}
