//! Zero-copy-ish, never-failing field types shared by the Codex and Gemini readers: a
//! value of an unexpected JSON type deserializes to "nothing" instead of failing the
//! record, and values nobody asked for are skipped with `IgnoredAny`, so a line holding
//! megabytes of tool output costs one scan and no allocation.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, value::MapAccessDeserializer, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// Inside a lenient `Visitor` impl: each JSON kind listed (`str`, `number`, `bool`,
/// `null`, `seq`, `map`) becomes `$value`, arrays and objects skipped unread. The kinds
/// a visitor reads itself it leaves out and writes. One rule, so a reader's types never
/// differ in what an unexpected value does: it is "nothing", never an error.
macro_rules! otherwise {
    ($de:lifetime, $value:expr; $($kind:ident),+) => { $( $crate::sources::lenient::otherwise!(@$kind $de, $value); )+ };
    (@str $de:lifetime, $value:expr) => {
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
    (@number $de:lifetime, $value:expr) => {
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
    (@bool $de:lifetime, $value:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
    (@null $de:lifetime, $value:expr) => {
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
    (@seq $de:lifetime, $value:expr) => {
        fn visit_seq<A: serde::de::SeqAccess<$de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
            Ok($value)
        }
    };
    (@map $de:lifetime, $value:expr) => {
        fn visit_map<A: serde::de::MapAccess<$de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?.is_some() {}
            Ok($value)
        }
    };
}
pub(crate) use otherwise;

/// A string or number (anything else is `None`).
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) enum Scalar {
    /// Absent, null, or not a scalar.
    #[default]
    None,
    /// A string.
    Str(String),
    /// A number.
    Num(f64),
    /// A boolean.
    Bool(bool),
}

impl Scalar {
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The string, owned.
    pub(crate) fn string(self) -> Option<String> {
        match self {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Ms since epoch from an RFC 3339 string or a number of ms.
    pub(crate) fn time(&self) -> Option<i64> {
        match self {
            Scalar::Str(s) => crate::model::parse_time(s).or_else(|| s.trim().parse().ok()),
            Scalar::Num(n) if n.is_finite() => Some(*n as i64),
            _ => None,
        }
    }

    pub(crate) fn is_true(&self) -> bool {
        matches!(self, Scalar::Bool(true))
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar::Str(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Scalar, E> {
                Ok(Scalar::Str(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar::Num(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar::Num(v as f64))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar::Num(v))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar::Bool(v))
            }
            fn visit_unit<E>(self) -> Result<Scalar, E> {
                Ok(Scalar::None)
            }
            fn visit_none<E>(self) -> Result<Scalar, E> {
                Ok(Scalar::None)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Scalar, D::Error> {
                Scalar::deserialize(d)
            }
            otherwise!('de, Scalar::None; seq, map);
        }
        d.deserialize_any(V)
    }
}

/// An object deserialized as `T`; anything else is `None`.
#[derive(Debug)]
pub(crate) struct Obj<T>(pub(crate) Option<T>);

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(|t| Obj(Some(t)))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Obj<T>, D::Error> {
                Obj::deserialize(d)
            }
            otherwise!('de, Obj(None); seq, str, number, bool, null);
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// An array of objects deserialized as `T` (elements that are not objects are dropped);
/// anything else is empty.
#[derive(Debug)]
pub(crate) struct List<T>(pub(crate) Vec<Obj<T>>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = List<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<List<T>, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element::<Obj<T>>()? {
                    out.push(item);
                }
                Ok(List(out))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<List<T>, D::Error> {
                List::deserialize(d)
            }
            otherwise!('de, List(Vec::new()); map, str, number, bool, null);
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// One content part: Codex `{type, text}` items and Gemini `Part`s (`{text, thought}`;
/// a bare string is a text part).
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Part {
    /// `type`, when a string.
    pub(crate) ty: Option<String>,
    /// `text`, when a string.
    pub(crate) text: Option<String>,
    /// Gemini `thought: true` (model thinking, not the reply).
    pub(crate) thought: bool,
}

/// Message content: a string, one part object, or an array of parts and strings.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Parts(pub(crate) Vec<Part>);

impl Parts {
    /// The visible text pieces (not thoughts).
    pub(crate) fn texts(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter(|p| !p.thought).filter_map(|p| p.text.as_deref())
    }
}

enum PartKey {
    Type,
    Text,
    Thought,
    Other,
}

impl<'de> Deserialize<'de> for PartKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = PartKey;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E>(self, v: &str) -> Result<PartKey, E> {
                Ok(match v {
                    "type" => PartKey::Type,
                    "text" => PartKey::Text,
                    "thought" => PartKey::Thought,
                    _ => PartKey::Other,
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

fn part_from_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<Part, A::Error> {
    let mut part = Part::default();
    while let Some(key) = map.next_key::<PartKey>()? {
        match key {
            PartKey::Type => part.ty = map.next_value::<Scalar>()?.string(),
            PartKey::Text => part.text = map.next_value::<Scalar>()?.string(),
            PartKey::Thought => part.thought = map.next_value::<Scalar>()?.is_true(),
            PartKey::Other => {
                map.next_value::<IgnoredAny>()?;
            }
        }
    }
    Ok(part)
}

struct PartOrSkip(Option<Part>);

impl<'de> Deserialize<'de> for PartOrSkip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PartOrSkip;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a part")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<PartOrSkip, A::Error> {
                part_from_map(map).map(|p| PartOrSkip(Some(p)))
            }
            fn visit_str<E>(self, v: &str) -> Result<PartOrSkip, E> {
                Ok(PartOrSkip(Some(Part { text: Some(v.to_owned()), ..Default::default() })))
            }
            fn visit_string<E>(self, v: String) -> Result<PartOrSkip, E> {
                Ok(PartOrSkip(Some(Part { text: Some(v), ..Default::default() })))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<PartOrSkip, D::Error> {
                PartOrSkip::deserialize(d)
            }
            otherwise!('de, PartOrSkip(None); seq, number, bool, null);
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Parts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Parts;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("message content")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parts, A::Error> {
                let mut out = Vec::new();
                while let Some(PartOrSkip(part)) = seq.next_element::<PartOrSkip>()? {
                    out.extend(part);
                }
                Ok(Parts(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Parts, A::Error> {
                part_from_map(map).map(|p| Parts(vec![p]))
            }
            fn visit_str<E>(self, v: &str) -> Result<Parts, E> {
                Ok(Parts(vec![Part { text: Some(v.to_owned()), ..Default::default() }]))
            }
            fn visit_string<E>(self, v: String) -> Result<Parts, E> {
                Ok(Parts(vec![Part { text: Some(v), ..Default::default() }]))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Parts, D::Error> {
                Parts::deserialize(d)
            }
            otherwise!('de, Parts::default(); number, bool, null);
        }
        d.deserialize_any(V)
    }
}

/// Codex `session_meta.source`: true for `{"subagent": …}` (or the string `subagent`).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct SubagentFlag(pub(crate) bool);

fn is_subagent_name(s: &str) -> bool {
    let s = s.to_ascii_lowercase();
    s.starts_with("subagent") || s.starts_with("sub_agent")
}

impl<'de> Deserialize<'de> for SubagentFlag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SubagentFlag;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a session source")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<SubagentFlag, E> {
                Ok(SubagentFlag(is_subagent_name(v)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SubagentFlag, A::Error> {
                let mut found = false;
                while let Some(key) = map.next_key::<Scalar>()? {
                    found |= key.as_str().is_some_and(is_subagent_name);
                    map.next_value::<IgnoredAny>()?;
                }
                Ok(SubagentFlag(found))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<SubagentFlag, D::Error> {
                SubagentFlag::deserialize(d)
            }
            otherwise!('de, SubagentFlag(false); seq, number, bool, null);
        }
        d.deserialize_any(V)
    }
}
