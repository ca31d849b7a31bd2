//! JSON and JSONC editing through a concrete syntax tree (`jsonc-parser`'s CST), which keeps
//! comments, whitespace, key order and the trailing newline of everything we do not touch.

use std::path::{Path, PathBuf};

use jsonc_parser::cst::{CstInputValue, CstNode, CstObject, CstRootNode};
use jsonc_parser::errors::ParseError;
use jsonc_parser::ParseOptions;

use super::{json_kind, Document, Slot};
use crate::spec::{Entry, Field, OTHER_TRANSPORT};
use crate::Error;

/// How lenient an agent's JSON reader is; we accept exactly what the agent accepts, so we
/// never "fix" a file into something the agent would reject, nor reject one it reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JsonDialect {
    comments: bool,
    trailing_commas: bool,
}

impl JsonDialect {
    /// Plain JSON (Claude Code's `~/.claude.json`, read with `JSON.parse`).
    pub const STRICT: JsonDialect = JsonDialect { comments: false, trailing_commas: false };
    /// JSON with comments (Gemini CLI strips comments, then uses `JSON.parse`).
    pub const COMMENTS: JsonDialect = JsonDialect { comments: true, trailing_commas: false };
    /// JSONC with comments and trailing commas (opencode).
    pub const JSONC: JsonDialect = JsonDialect { comments: true, trailing_commas: true };

    fn options(self) -> ParseOptions {
        ParseOptions {
            allow_comments: self.comments,
            allow_trailing_commas: self.trailing_commas,
            allow_loose_object_property_names: false,
            allow_missing_commas: false,
            allow_single_quoted_strings: false,
            allow_hexadecimal_numbers: false,
            allow_unary_plus_numbers: false,
            allow_bare_decimal_point_numbers: false,
            allow_non_finite_numbers: false,
            allow_extended_string_escapes: false,
        }
    }
}

/// A parsed JSON config file.
pub(crate) struct JsonDoc {
    // The CST's nodes hold weak references to the root: it must live as long as the doc.
    root: CstRootNode,
    slot: Slot,
}

/// `text` (the file at `path`, for messages) as a CST, accepted only if `dialect` reads it.
pub(crate) fn parse_root(path: &Path, text: &str, dialect: JsonDialect) -> Result<CstRootNode, Error> {
    let options = dialect.options();
    let syntax = |e: ParseError| Error::Syntax {
        path: path.to_path_buf(),
        line: Some(e.line_display()),
        column: Some(e.column_display()),
        message: e.kind().to_string(),
    };
    // The CST parser ignores `allow_comments` (jsonc-parser 0.34), so validate first.
    jsonc_parser::parse_to_value(text, &options).map_err(syntax)?;
    CstRootNode::parse(text, &options).map_err(syntax)
}

impl JsonDoc {
    pub fn parse(path: &Path, text: &str, dialect: JsonDialect, slot: Slot) -> Result<JsonDoc, Error> {
        let root = parse_root(path, text, dialect)?;
        let shape = |key: &str, node: &CstNode| Error::Shape {
            path: PathBuf::from(path),
            key: key.to_string(),
            expected: "an object",
            found: node.to_serde_value().as_ref().map_or("not a value", json_kind),
        };
        // An empty (or comment-only) file is treated as `{}`.
        if let Some(value) = root.value() {
            let object = value.as_object().ok_or_else(|| shape("the top level", &value))?;
            if let Some(container) = object.get(slot.container).and_then(|p| p.value()) {
                if container.as_object().is_none() {
                    return Err(shape(&format!("\"{}\"", slot.container), &container));
                }
            }
        }
        Ok(JsonDoc { root, slot })
    }

    fn container(&self) -> Option<CstObject> {
        self.root.object_value()?.object_value(self.slot.container)
    }
}

impl Document for JsonDoc {
    fn entry(&self) -> Option<serde_json::Value> {
        self.container()?.get(self.slot.name)?.value()?.to_serde_value()
    }

    fn set_entry(&mut self, entry: &Entry) {
        let value = to_input(entry);
        match self.container() {
            Some(container) => match container.get(self.slot.name) {
                Some(prop) => match prop.value().and_then(|v| v.as_object()) {
                    Some(existing) => update_in_place(&existing, entry),
                    None => prop.set_value(value),
                },
                None => {
                    container.append(self.slot.name, value);
                }
            },
            None => {
                let map = CstInputValue::Object(vec![(self.slot.name.to_string(), value)]);
                self.root.object_value_or_set().append(self.slot.container, map);
            }
        }
    }

    fn remove_entry(&mut self) -> bool {
        let Some(container) = self.container() else { return false };
        let Some(prop) = container.get(self.slot.name) else { return false };
        prop.remove();
        let keep = !container.properties().is_empty() || container.children().iter().any(CstNode::is_comment);
        if !keep {
            if let Some(prop) = self.root.object_value().and_then(|o| o.get(self.slot.container)) {
                prop.remove();
            }
        }
        true
    }

    fn render(&self) -> String {
        self.root.to_string()
    }
}

/// Our keys set to ours (an unchanged one is left as it is written), the other
/// transport's taken out, every other key of the person's kept where it is.
fn update_in_place(existing: &CstObject, entry: &Entry) {
    for key in OTHER_TRANSPORT {
        if let Some(prop) = existing.get(key) {
            prop.remove();
        }
    }
    for (key, field) in &entry.owned {
        match existing.get(key) {
            Some(prop) if prop.value().and_then(|v| v.to_serde_value()) == Some(field.to_json()) => {}
            Some(prop) => prop.set_value(field_input(field)),
            None => {
                existing.append(key, field_input(field));
            }
        }
    }
}

fn field_input(field: &Field) -> CstInputValue {
    match field {
        Field::Str(s) => CstInputValue::String(s.clone()),
        Field::List(items) => CstInputValue::Array(items.iter().cloned().map(CstInputValue::String).collect()),
        Field::Bool(b) => CstInputValue::Bool(*b),
        Field::Int(i) => CstInputValue::Number(i.to_string()),
        Field::EmptyMap => CstInputValue::Object(Vec::new()),
    }
}

fn to_input(entry: &Entry) -> CstInputValue {
    CstInputValue::Object(entry.fields().map(|(key, field)| (key.to_string(), field_input(field))).collect())
}
