//! What `/mcp` and `/mcp/agent` answer to input rmcp refuses: a clear status and body
//! instead of rmcp's plain text (which the API's error guard could only call
//! `internal`).
//!
//! - A body that is not JSON: **400** with a JSON-RPC error `-32700` (Parse error).
//! - A batch, a JSON value that is not an object, or an object that is not a JSON-RPC
//!   message: **400** with `-32600` (Invalid Request). rmcp answers all of these 415, as
//!   if the content type were wrong.
//! - A wrong `Content-Type` (415), `Accept` (406) or an unknown session (404): the API's
//!   JSON error body with a code that says which, and what to send.
//!
//! rmcp is left to parse the body; only its refusals are inspected, so a well-formed
//! request costs nothing more than keeping a second handle on its (already read) bytes.

use axum::body::{to_bytes, Body, Bytes};
use axum::extract::Request;
use axum::http::header::{CONTENT_TYPE, HeaderMap};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use memory_bank_contract::limits::MAX_BODY_BYTES;
use memory_bank_contract::{ErrorBody, ErrorCode, FieldError};
use serde_json::{json, Value};

/// JSON-RPC's "Parse error".
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "Invalid Request".
pub const INVALID_REQUEST: i64 = -32600;

/// What an MCP request is shaped like.
const SEND: &str = r#"send one JSON-RPC 2.0 message object per POST, e.g. {"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

/// The answer to a request naming an MCP session that is not open (ended, unknown, or
/// not the caller's: indistinguishably).
pub fn session_not_found() -> Response {
    let details = vec![FieldError::new(
        "Mcp-Session-Id",
        "no open MCP session has this id (it ended, or the server restarted); start a new one with initialize",
    )];
    (StatusCode::NOT_FOUND, Json(ErrorBody { details, ..ErrorBody::code(ErrorCode::McpSessionNotFound) })).into_response()
}

/// The middleware: passes every request to rmcp and rewrites its plain-text refusals.
pub async fn answer_bad_input(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let json_post = method == Method::POST && is_json(request.headers());
    if !json_post {
        return rewrite(next.run(request).await, &method).await;
    }
    // The body was read already (the API's `bound_request`): this only takes its bytes.
    let (parts, body) = request.into_parts();
    let Ok(bytes) = to_bytes(body, MAX_BODY_BYTES + 1).await else {
        return memory_bank_server::ApiError::PayloadTooLarge.into_response();
    };
    let response = next.run(Request::from_parts(parts, Body::from(bytes.clone()))).await;
    // With a JSON content type, rmcp's 415 means the body did not read as a message.
    if response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE && !is_json(response.headers()) {
        return invalid_body(&bytes);
    }
    rewrite(response, &method).await
}

/// Whether the headers' `Content-Type` is `application/json` (parameters aside).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// The JSON-RPC error for a body that is not one JSON-RPC message; its id when the
/// body has a readable one, else null (as JSON-RPC asks).
fn invalid_body(bytes: &Bytes) -> Response {
    let mut id = Value::Null;
    let (code, message) = match serde_json::from_slice::<Value>(bytes) {
        Err(err) => (PARSE_ERROR, format!("Parse error: the body is not JSON ({err}); {SEND}")),
        Ok(Value::Array(_)) => (INVALID_REQUEST, format!("Invalid Request: JSON-RPC batches are not supported; {SEND}")),
        Ok(Value::Object(object)) => {
            if let Some(given) = object.get("id").filter(|id| id.is_string() || id.is_i64() || id.is_u64()) {
                id = given.clone();
            }
            let why = serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(bytes)
                .err()
                .map_or_else(|| "not a message this server reads".to_owned(), |e| e.to_string().chars().take(200).collect());
            (INVALID_REQUEST, format!("Invalid Request: not a JSON-RPC 2.0 request, notification or response ({why}); {SEND}"))
        }
        Ok(other) => (INVALID_REQUEST, format!("Invalid Request: the body is a JSON {}, not an object; {SEND}", kind(&other))),
    };
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    (StatusCode::BAD_REQUEST, Json(body)).into_response()
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// rmcp's plain-text 404 (unknown session), 406 and 415 as the API's JSON errors; any
/// other answer unchanged (the API's guard gives the rest the JSON shape).
async fn rewrite(response: Response, method: &Method) -> Response {
    let status = response.status();
    if !matches!(status, StatusCode::NOT_FOUND | StatusCode::NOT_ACCEPTABLE | StatusCode::UNSUPPORTED_MEDIA_TYPE)
        || response.headers().get(CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"application/json"))
    {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = to_bytes(body, 4096).await.unwrap_or_default();
    let (code, field, message) = match status {
        StatusCode::NOT_FOUND if String::from_utf8_lossy(&text).contains("Session not found") => return session_not_found(),
        StatusCode::NOT_ACCEPTABLE if method == Method::GET => {
            (ErrorCode::NotAcceptable, "Accept", "send Accept: text/event-stream to open the MCP event stream")
        }
        StatusCode::NOT_ACCEPTABLE => (
            ErrorCode::NotAcceptable,
            "Accept",
            "send Accept: application/json, text/event-stream (an MCP client over streamable HTTP takes both)",
        ),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => {
            (ErrorCode::UnsupportedMediaType, "Content-Type", "send the JSON-RPC message with Content-Type: application/json")
        }
        _ => return Response::from_parts(parts, Body::from(text)),
    };
    let body = ErrorBody { details: vec![FieldError::new(field, message)], ..ErrorBody::code(code) };
    (status, Json(body)).into_response()
}
