//! Reading live, untrusted JSON Lines files: complete lines only, any length, lossy UTF-8,
//! and JSON that strict parsers reject (lone UTF-16 surrogate escapes).

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

/// Parses one line as JSON the way the agents' own (JavaScript, Python) readers would:
/// invalid UTF-8 becomes U+FFFD and a lone surrogate escape such as `"\ud83c"` (output cut
/// mid-emoji) becomes `"\ufffd"` instead of failing the whole line. `None` when the line is
/// blank or not JSON at all.
pub fn parse_line(line: &[u8]) -> Option<serde_json::Value> {
    let line = trim_ascii(line);
    if line.is_empty() {
        return None;
    }
    if let Ok(value) = serde_json::from_slice(line) {
        return Some(value);
    }
    // Slow path, only for lines a strict parser rejected.
    let text = String::from_utf8_lossy(line);
    let repaired = repair_surrogates(&text);
    serde_json::from_str(&repaired).ok()
}

/// Typed variant of [`parse_line`] for records that only need a few fields.
pub fn parse_line_as<T: serde::de::DeserializeOwned>(line: &[u8]) -> Option<T> {
    let line = trim_ascii(line);
    if line.is_empty() {
        return None;
    }
    if let Ok(value) = serde_json::from_slice(line) {
        return Some(value);
    }
    let text = String::from_utf8_lossy(line);
    serde_json::from_str(&repair_surrogates(&text)).ok()
}

fn trim_ascii(mut bytes: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = bytes {
        if first.is_ascii_whitespace() || *first == 0 {
            bytes = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = bytes {
        if last.is_ascii_whitespace() || *last == 0 {
            bytes = rest;
        } else {
            break;
        }
    }
    bytes
}

/// Replaces `\uXXXX` escapes that are unpaired UTF-16 surrogates with `\ufffd`.
pub fn repair_surrogates(json: &str) -> String {
    let bytes = json.as_bytes();
    let mut out = String::with_capacity(json.len());
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        if bytes.get(i + 1) != Some(&b'u') {
            i += 2; // any other escape, including `\\`
            continue;
        }
        let Some(unit) = hex4(bytes, i + 2) else {
            i += 2;
            continue;
        };
        let is_high = (0xD800..0xDC00).contains(&unit);
        let is_low = (0xDC00..0xE000).contains(&unit);
        if is_high {
            let paired = bytes.get(i + 6) == Some(&b'\\')
                && bytes.get(i + 7) == Some(&b'u')
                && hex4(bytes, i + 8).is_some_and(|low| (0xDC00..0xE000).contains(&low));
            if paired {
                i += 12;
                continue;
            }
        }
        if is_high || is_low {
            out.push_str(&json[copied..i]);
            out.push_str("\\ufffd");
            i += 6;
            copied = i;
            continue;
        }
        i += 6;
    }
    out.push_str(&json[copied..]);
    out
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let text = std::str::from_utf8(digits).ok()?;
    u32::from_str_radix(text, 16).ok()
}

/// One complete line read from a file.
#[derive(Debug)]
pub struct Line {
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// The line without its newline.
    pub bytes: Vec<u8>,
}

/// Reads the complete lines of `file` from byte `start`: lines that end in `\n`, plus a
/// final unterminated line only when it is already a whole JSON value (a writer that
/// has not flushed yet leaves a fragment, which is skipped and read again next time).
/// Returns the lines and the offset after the last one consumed.
pub fn read_complete_lines(file: &mut File, start: u64, each: impl FnMut(Line)) -> std::io::Result<u64> {
    Ok(read_complete_lines_upto(file, start, u64::MAX, each)?.0)
}

/// [`read_complete_lines`] that stops at the first line boundary after `budget` bytes:
/// returns the offset after the last line consumed and whether it stopped early (more
/// lines may follow).
pub fn read_complete_lines_upto(
    file: &mut File,
    start: u64,
    budget: u64,
    mut each: impl FnMut(Line),
) -> std::io::Result<(u64, bool)> {
    file.seek(SeekFrom::Start(start))?;
    let mut reader = BufReader::with_capacity(256 * 1024, file.by_ref());
    let mut offset = start;
    let mut buf = Vec::new();
    loop {
        if offset - start >= budget {
            return Ok((offset, true));
        }
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf)?;
        if n == 0 {
            break;
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            each(Line { offset, bytes: std::mem::take(&mut buf) });
            offset += n as u64;
        } else {
            // Unterminated: consume only a complete JSON value.
            if serde_json::from_slice::<serde::de::IgnoredAny>(trim_ascii(&buf)).is_ok()
                || parse_line(&buf).is_some()
            {
                each(Line { offset, bytes: std::mem::take(&mut buf) });
                offset += n as u64;
            }
            break;
        }
    }
    Ok((offset, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let v = parse_line(br#"{"t":"cut \ud83c","u":"ok \ud83c\udf89","w":"\\ud83c"}"#).unwrap();
        assert_eq!(v["t"], "cut \u{fffd}");
        assert_eq!(v["u"], "ok 🎉");
        assert_eq!(v["w"], "\\ud83c");
        let v = parse_line(br#"{"t":"\udc00 low first"}"#).unwrap();
        assert_eq!(v["t"], "\u{fffd} low first");
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        let mut line = br#"{"t":"caf"#.to_vec();
        line.push(0xE9);
        line.extend_from_slice(br#""}"#);
        assert_eq!(parse_line(&line).unwrap()["t"], "caf\u{fffd}");
    }

    #[test]
    fn half_written_last_line_is_not_consumed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"b\":2}\n{\"c\":").unwrap();
        let mut file = File::open(&path).unwrap();
        let mut lines = Vec::new();
        let end = read_complete_lines(&mut file, 0, |l| lines.push(l)).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(end, 16);
        std::fs::write(&path, "{\"a\":1}\n{\"b\":2}\n{\"c\":3}").unwrap();
        let mut file = File::open(&path).unwrap();
        let mut more = Vec::new();
        let end = read_complete_lines(&mut file, end, |l| more.push(l)).unwrap();
        assert_eq!(more.len(), 1);
        assert_eq!(more[0].bytes, b"{\"c\":3}");
        assert_eq!(end, 23);
    }
}
