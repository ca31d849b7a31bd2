//! The Memory Bank API contract, shared by the server, the stores and every client.
//!
//! Everything a client and the server must agree on lives here: the JSON shapes
//! ([`wire`]), the hard input limits ([`limits`]), the validation that enforces them
//! ([`validate`]), id formats ([`ids`]), timestamps ([`time`]) and the error codes
//! ([`error`]). Nothing in this crate performs I/O.

pub mod edit;
pub mod error;
pub mod ids;
pub mod limits;
pub mod secrets;
pub mod time;
pub mod transfer;
pub mod validate;
pub mod wire;

pub use error::{cap_details, ErrorBody, ErrorCode, FieldError, MAX_ERROR_DETAILS};
pub use time::Timestamp;
