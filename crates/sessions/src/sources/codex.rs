//! Codex reader (stub: to be written).

use std::path::{Path, PathBuf};

use crate::model::{Event, Source};
use crate::source::{Env, LineParser, LinePos, Problem, SourceReader, Unit, WholeSession};

/// Reads Codex sessions.
pub struct Codex;

struct Parser;

impl LineParser for Parser {
    fn line(&mut self, _line: &[u8], _pos: LinePos, _out: &mut Vec<Event>) {}
}

impl SourceReader for Codex {
    fn source(&self) -> Source {
        Source::Codex
    }

    fn default_roots(&self, _env: &Env) -> Vec<PathBuf> {
        Vec::new()
    }

    fn discover(&self, _root: &Path, _units: &mut Vec<Unit>, _problems: &mut Vec<Problem>) {}

    fn line_parser(&self, _unit: &Unit) -> Box<dyn LineParser> {
        Box::new(Parser)
    }

    fn parse_whole(&self, _unit: &Unit) -> std::io::Result<Vec<WholeSession>> {
        Ok(Vec::new())
    }
}
