//! The Memory Bank API contract, shared by the server, the stores and every client.
//!
//! Everything a client and the server must agree on lives here: the JSON shapes
//! ([`wire`]), the hard input limits ([`limits`]), the validation that enforces them
//! ([`validate`]), id formats ([`ids`]), timestamps ([`time`]) and the error codes
//! ([`error`]). Every stored text passes one [`gate`]. Nothing in this crate performs I/O.
//!
//! Modules depend one way: `error`, `limits`, `ids`, `time`, `wire` at the bottom, then
//! `secrets` (the detector), `gate` (the one check of stored text), `body` (JSON
//! bodies), `edit`, `validate`, and `transfer` on top.

pub mod body;
pub mod edit;
pub mod error;
pub mod gate;
pub mod ids;
pub mod limits;
pub mod secrets;
pub mod teams;
pub mod time;
pub mod transfer;
pub mod validate;
pub mod wire;

pub use error::{cap_details, ErrorBody, ErrorCode, FieldError, MAX_ERROR_DETAILS};
pub use time::Timestamp;
