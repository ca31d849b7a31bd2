//! TOML editing with `toml_edit`, which keeps comments, whitespace and key order.

use std::path::Path;

use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, TableLike, Value};

use super::{Document, Slot};
use crate::error::line_column;
use crate::spec::{Entry, Field, OTHER_TRANSPORT};
use crate::Error;

/// A parsed TOML config file.
pub(crate) struct TomlDoc {
    doc: DocumentMut,
    slot: Slot,
    // `toml_edit` writes every line break as `\n`; a CRLF file is given its CRLFs back.
    crlf: bool,
}

impl TomlDoc {
    pub fn parse(path: &Path, text: &str, slot: Slot) -> Result<TomlDoc, Error> {
        let doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
            let at = e.span().map(|span| line_column(text, span.start));
            Error::Syntax {
                path: path.to_path_buf(),
                line: at.map(|(l, _)| l),
                column: at.map(|(_, c)| c),
                message: e.message().trim_end().to_string(),
            }
        })?;
        if let Some(item) = doc.get(slot.container) {
            if !item.is_table_like() {
                return Err(Error::Shape {
                    path: path.to_path_buf(),
                    key: format!("`{}`", slot.container),
                    expected: "a table",
                    found: with_article(item.type_name()),
                });
            }
        }
        Ok(TomlDoc { doc, slot, crlf: text.contains("\r\n") })
    }

    fn container_mut(&mut self) -> Option<&mut dyn TableLike> {
        self.doc.get_mut(self.slot.container)?.as_table_like_mut()
    }
}

impl Document for TomlDoc {
    fn entry(&self) -> Option<serde_json::Value> {
        let container = self.doc.get(self.slot.container)?.as_table_like()?;
        item_to_json(container.get(self.slot.name)?)
    }

    fn set_entry(&mut self, entry: &Entry) {
        // A new table header gets a blank line before it, unless it is the first thing.
        let first_thing = self.doc.to_string().trim().is_empty();
        if self.doc.get(self.slot.container).is_none() {
            let mut table = Table::new();
            table.set_implicit(true);
            self.doc.insert(self.slot.container, Item::Table(table));
        }
        let inline_container = !self.doc[self.slot.container].is_table();
        let name = self.slot.name;
        let container = self.container_mut().expect("checked to be a table in parse");
        if let Some(existing) = container.get_mut(name).and_then(Item::as_table_like_mut) {
            update_in_place(existing, entry);
            return;
        }
        let mut table = Table::new();
        for (key, field) in entry.fields() {
            table.insert(key, Item::Value(field_value(field)));
        }
        if inline_container {
            container.insert(name, Item::Value(Value::InlineTable(table.into_inline_table())));
        } else {
            if !first_thing {
                table.decor_mut().set_prefix("\n");
            }
            container.insert(name, Item::Table(table));
        }
    }

    fn remove_entry(&mut self) -> bool {
        let name = self.slot.name;
        let Some(container) = self.container_mut() else { return false };
        if container.remove(name).is_none() {
            return false;
        }
        let now_empty = container.is_empty();
        let ours = self.doc[self.slot.container].as_table().is_some_and(Table::is_implicit);
        if now_empty && ours {
            self.doc.remove(self.slot.container);
        }
        true
    }

    fn render(&self) -> String {
        let text = self.doc.to_string();
        if !self.crlf {
            return text;
        }
        let mut out = String::with_capacity(text.len() + text.len() / 16);
        let mut previous = '\0';
        for c in text.chars() {
            if c == '\n' && previous != '\r' {
                out.push('\r');
            }
            out.push(c);
            previous = c;
        }
        out
    }
}

/// Our keys set to ours (keeping their layout, and an unchanged one as it is), the other
/// transport's taken out; every other key of the person's (`startup_timeout_sec`,
/// `enabled`, an `env` table…) stays where it is.
fn update_in_place(existing: &mut dyn TableLike, entry: &Entry) {
    for key in OTHER_TRANSPORT {
        existing.remove(key);
    }
    for (key, field) in &entry.owned {
        let mut value = field_value(field);
        match existing.get_mut(key) {
            Some(item) if item_to_json(item) == Some(field.to_json()) => {}
            Some(item) => {
                if let Some(old) = item.as_value() {
                    *value.decor_mut() = old.decor().clone();
                }
                *item = Item::Value(value);
            }
            None => {
                existing.insert(key, Item::Value(value));
            }
        }
    }
}

fn field_value(field: &Field) -> Value {
    match field {
        Field::Str(s) => Value::from(s.as_str()),
        Field::List(items) => Value::Array(items.iter().map(String::as_str).collect::<Array>()),
        Field::Bool(b) => Value::from(*b),
        Field::Int(i) => Value::from(*i),
        Field::EmptyMap => Value::InlineTable(InlineTable::new()),
    }
}

fn item_to_json(item: &Item) -> Option<serde_json::Value> {
    match item {
        Item::None => None,
        Item::Value(v) => Some(value_to_json(v)),
        Item::Table(t) => Some(table_to_json(t)),
        Item::ArrayOfTables(a) => {
            Some(serde_json::Value::Array(a.iter().map(|t| table_to_json(t)).collect()))
        }
    }
}

fn table_to_json(table: &dyn TableLike) -> serde_json::Value {
    let map = table.iter().filter_map(|(k, v)| Some((k.to_string(), item_to_json(v)?))).collect();
    serde_json::Value::Object(map)
}

fn value_to_json(value: &Value) -> serde_json::Value {
    use serde_json::Value as J;
    match value {
        Value::String(s) => J::String(s.value().clone()),
        Value::Integer(i) => J::from(*i.value()),
        Value::Float(f) => serde_json::Number::from_f64(*f.value()).map_or(J::Null, J::Number),
        Value::Boolean(b) => J::Bool(*b.value()),
        Value::Datetime(d) => J::String(d.value().to_string()),
        Value::Array(a) => J::Array(a.iter().map(value_to_json).collect()),
        Value::InlineTable(t) => table_to_json(t),
    }
}

fn with_article(type_name: &str) -> &'static str {
    match type_name {
        "string" => "a string",
        "integer" => "an integer",
        "float" => "a float",
        "boolean" => "a boolean",
        "datetime" => "a datetime",
        "array" => "an array",
        "array of tables" => "an array of tables",
        _ => "something else",
    }
}
