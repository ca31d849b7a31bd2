//! YAML editing with `yaml-edit`, a lossless syntax tree (rowan): comments, blank lines,
//! key order, indentation and quoting of everything we do not touch stay as written.
//!
//! `yaml-edit`'s parser recovers from errors rather than refusing, so a file is accepted
//! only when the parser reports nothing and its YAML 1.2 validator finds no error (bad
//! indentation, tabs, duplicate keys, undefined aliases…): what goose's strict reader
//! would refuse, we refuse too, and never "fix".

use std::path::Path;

use yaml_edit::validator::{Severity, Validator};
use yaml_edit::{Mapping, MappingBuilder, Scalar, Sequence, YamlFile, YamlNode};

use super::{Document, Slot};
use crate::error::line_column;
use crate::spec::{Entry, Field, OTHER_TRANSPORT};
use crate::Error;

/// A parsed YAML config file.
pub(crate) struct YamlDoc {
    file: YamlFile,
    slot: Slot,
    // New lines come out as `\n`; a CRLF file is given its CRLFs back.
    crlf: bool,
    // Removing our container emptied a block top-level map: `yaml-edit` writes that as
    // `{}`, which render takes out again, so the file is as it was before install.
    drained_root: bool,
}

impl YamlDoc {
    pub fn parse(path: &Path, text: &str, slot: Slot) -> Result<YamlDoc, Error> {
        let syntax = |offset: usize, message: &str| {
            let (line, column) = line_column(text, offset);
            Error::Syntax {
                path: path.to_path_buf(),
                line: Some(line),
                column: Some(column),
                message: message.trim_end_matches('.').to_string(),
            }
        };
        let parse = YamlFile::parse(text);
        if let Some(e) = parse.positioned_errors().first() {
            return Err(syntax(e.range.start as usize, &e.message));
        }
        let file = parse.tree();
        let mut documents = file.documents();
        let first = documents.next();
        if let Some(second) = documents.next() {
            let at = second.byte_range().start as usize;
            return Err(syntax(at, "a second YAML document; goose reads a file holding one"));
        }
        // An empty or comment-only file (no document, or one with no content) is an empty map.
        let Some(document) = first else {
            return Ok(YamlDoc { file, slot, crlf: text.contains("\r\n"), drained_root: false });
        };
        let violations = Validator::new().validate(&document);
        if let Some(v) = violations.into_iter().find(|v| v.severity == Severity::Error) {
            return Err(syntax(v.text_range.map_or(0, |r| r.start as usize), &v.message));
        }
        let shape = |key: String, found: &YamlNode| Error::Shape {
            path: path.to_path_buf(),
            key,
            expected: "a map",
            found: kind(found),
        };
        match content(&document) {
            Some(YamlNode::Mapping(root)) => {
                if let Some(container) = root.get(slot.container).filter(|c| c.as_mapping().is_none()) {
                    return Err(shape(format!("`{}`", slot.container), &container));
                }
            }
            Some(other) => return Err(shape("the top level".into(), &other)),
            None => {}
        }
        Ok(YamlDoc { file, slot, crlf: text.contains("\r\n"), drained_root: false })
    }

    fn root(&self) -> Option<Mapping> {
        self.file.document()?.as_mapping()
    }

    fn container(&self) -> Option<Mapping> {
        self.root()?.get_mapping(self.slot.container)
    }
}

impl Document for YamlDoc {
    fn entry(&self) -> Option<serde_json::Value> {
        Some(to_json(&self.container()?.get(self.slot.name)?))
    }

    fn set_entry(&mut self, entry: &Entry) {
        let container = match self.container() {
            Some(container) => container,
            None => {
                // A new block map, appended at the end of the top level (created first when
                // the file has no document).
                self.file.ensure_document().set(self.slot.container, Mapping::new());
                self.container().expect("the container was just added")
            }
        };
        match container.get_mapping(self.slot.name) {
            Some(existing) => update_in_place(&existing, entry),
            // In a flow-style container (`extensions: {}`) our entry is written flow style
            // too, on the same line; in a block one, one key per line.
            None => container.set(self.slot.name, built(entry.fields())),
        }
    }

    fn remove_entry(&mut self) -> bool {
        let Some(container) = self.container() else { return false };
        if container.remove(self.slot.name).is_none() {
            return false;
        }
        // A container left empty goes too, as install adds one where there is none, unless
        // the person wrote a comment in it, or it is a flow map (`extensions: {}`) in a
        // block file: install writes a block one there, so that one was the person's.
        let root = self.root().expect("the container is in the top-level map");
        let has_comment = root.find_entry_by_key(self.slot.container).is_some_and(|entry| {
            let range = entry.byte_range();
            self.file.comments().any(|c| range.start <= c.byte_range().start && c.byte_range().end <= range.end)
        });
        let root_is_block = !root.is_flow_style();
        // (A block map `yaml-edit` emptied is written `{}` but is not flow style.)
        let ours = !container.is_flow_style() || !root_is_block;
        if container.is_empty() && ours && !has_comment {
            root.remove(self.slot.container);
            self.drained_root = root_is_block && root.is_empty();
        }
        true
    }

    fn render(&self) -> String {
        let mut text = self.file.to_string();
        if self.drained_root {
            // The `{}` standing for the emptied top level, and the line break after it.
            if let Some(range) = self.root().map(|r| r.byte_range()) {
                let (start, mut end) = (range.start as usize, range.end as usize);
                if text[end..].starts_with("\r\n") {
                    end += 2;
                } else if text[end..].starts_with('\n') {
                    end += 1;
                }
                text.replace_range(start..end, "");
            }
        }
        if self.crlf {
            text = text.replace("\r\n", "\n").replace('\n', "\r\n");
        }
        text
    }
}

/// Our keys set to ours (a value that is already ours is left as written; a list keeps its
/// style), the other transport's taken out; every other key of the person's (`enabled`,
/// `timeout`, `envs`…) stays where it is.
fn update_in_place(existing: &Mapping, entry: &Entry) {
    for key in OTHER_TRANSPORT {
        existing.remove(key);
    }
    for (key, field) in &entry.owned {
        let current = existing.get(*key);
        if current.as_ref().map(to_json) == Some(field.to_json()) {
            continue;
        }
        match (field, current.as_ref().and_then(YamlNode::as_sequence)) {
            (Field::List(items), Some(list)) if !list.is_empty() => set_items(list, items),
            _ => {
                let value = built(std::iter::once(&(*key, field.clone())));
                existing.set(*key, value.get(*key).expect("built with this key"));
            }
        }
    }
}

/// A non-empty list made to hold `items`, item by item, so it keeps its layout (block
/// or flow, its indentation, a comment at the end of an item's line).
fn set_items(list: &Sequence, items: &[String]) {
    for (i, item) in items.iter().enumerate() {
        match list.get(i) {
            Some(old) if to_json(&old) == serde_json::Value::String(item.clone()) => {}
            Some(_) => {
                list.set(i, item.as_str());
            }
            None => list.push(item.as_str()),
        }
    }
    while list.len() > items.len() {
        list.pop();
    }
}

/// `fields` as a new block map, in order; `yaml-edit` quotes the strings that need it.
fn built<'a>(fields: impl Iterator<Item = &'a (&'static str, Field)>) -> Mapping {
    let map = fields.fold(MappingBuilder::new(), |map, (key, field)| match field {
        Field::Str(s) => map.pair(*key, s.as_str()),
        Field::List(items) => map.sequence(*key, |list| items.iter().fold(list, |list, i| list.item(i.as_str()))),
        Field::Bool(b) => map.pair(*key, *b),
        Field::Int(i) => map.pair(*key, *i),
        Field::EmptyMap => map.mapping(*key, |m| m),
    });
    map.build_document().as_mapping().expect("built as a map")
}

/// What a document holds at its top level, if anything.
fn content(document: &yaml_edit::Document) -> Option<YamlNode> {
    if let Some(map) = document.as_mapping() {
        return Some(YamlNode::Mapping(map));
    }
    document
        .as_sequence()
        .map(YamlNode::Sequence)
        .or_else(|| document.as_scalar().map(YamlNode::Scalar))
        .or_else(|| document.as_tagged().map(YamlNode::TaggedNode))
}

/// A node as JSON, for comparing with what we would write: plain scalars typed as YAML
/// 1.2 reads them, an alias or tagged value as null (never ours).
fn to_json(node: &YamlNode) -> serde_json::Value {
    use serde_json::Value as J;
    match node {
        YamlNode::Scalar(s) => scalar_to_json(s),
        YamlNode::Mapping(map) => J::Object(
            map.iter()
                .map(|(k, v)| (k.as_scalar().map_or_else(|| to_json(&k).to_string(), Scalar::as_string), to_json(&v)))
                .collect(),
        ),
        YamlNode::Sequence(list) => J::Array(list.values().map(|v| to_json(&v)).collect()),
        YamlNode::Alias(_) | YamlNode::TaggedNode(_) => J::Null,
    }
}

fn scalar_to_json(s: &Scalar) -> serde_json::Value {
    use serde_json::Value as J;
    if s.is_quoted() || s.is_block() {
        return J::String(s.as_string());
    }
    if s.is_null() {
        return J::Null;
    }
    if let Some(b) = s.as_bool() {
        return J::Bool(b);
    }
    if let Some(i) = s.as_i64() {
        return J::from(i);
    }
    match s.as_f64().and_then(serde_json::Number::from_f64) {
        Some(n) => J::Number(n),
        None => J::String(s.as_string()),
    }
}

/// The name of a node's kind, for [`Error::Shape`].
fn kind(node: &YamlNode) -> &'static str {
    match node {
        YamlNode::Mapping(_) => "a map",
        YamlNode::Sequence(_) => "a list",
        YamlNode::Alias(_) => "an alias",
        YamlNode::TaggedNode(_) => "a tagged value",
        YamlNode::Scalar(s) => match scalar_to_json(s) {
            serde_json::Value::Null => "null",
            serde_json::Value::Bool(_) => "a boolean",
            serde_json::Value::Number(_) => "a number",
            _ => "a string",
        },
    }
}
