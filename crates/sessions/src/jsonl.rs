//! Reading live, untrusted JSON Lines files: complete lines only, up to
//! [`MAX_LINE_BYTES`] each (longer ones are skipped and counted), lossy UTF-8, and JSON
//! that strict parsers reject (lone UTF-16 surrogate escapes).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

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
pub struct Line<'a> {
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// The line without its newline; empty for a line over the cap.
    pub bytes: &'a [u8],
    /// For a line over [`MAX_LINE_BYTES`], its length (it is not read, only counted, so
    /// line numbers after it stay right).
    pub too_long: Option<u64>,
}

/// Bytes read from a file at a time; a longer line grows the buffer, up to the cap.
const READ_BLOCK: usize = 1 << 20;

/// The longest line read (without its newline): a longer one is skipped, read past in
/// blocks without holding it. The buffer grows to hold a whole line, so this bounds the
/// memory one live, untrusted file can take (a 300 MB line once grew it to 540 MB).
/// Real records reach a few tens of MB (a pasted image or a big tool result inline), so
/// 64 MiB keeps those.
pub const MAX_LINE_BYTES: usize = 64 << 20;

#[cfg(any(test, feature = "testing"))] // the index reads in parts: `read_complete_lines_upto`
/// Reads the complete lines of `file` from byte `start`: lines that end in `\n`, plus a
/// final unterminated line only when it is already a whole JSON value (a writer that
/// has not flushed yet leaves a fragment, which is skipped and read again next time).
/// Returns the lines and the offset after the last one consumed.
pub fn read_complete_lines(file: &mut File, start: u64, each: impl FnMut(Line<'_>)) -> std::io::Result<u64> {
    Ok(read_complete_lines_upto(file, start, u64::MAX, each)?.0)
}

/// [`read_complete_lines`] that stops at the first line boundary after `budget` bytes:
/// returns the offset after the last line consumed and whether it stopped early (more
/// lines may follow).
///
/// Lines are handed out as slices of one block buffer: no copy or allocation per line.
pub fn read_complete_lines_upto(
    file: &mut File,
    start: u64,
    budget: u64,
    each: impl FnMut(Line<'_>),
) -> std::io::Result<(u64, bool)> {
    read_lines(file, start, budget, MAX_LINE_BYTES, each)
}

/// [`read_complete_lines_upto`] with lines over `max_line` bytes skipped (handed out
/// with [`Line::too_long`] set). An unterminated line over it at the end of the file is
/// not consumed: it may still be being written.
fn read_lines(
    file: &mut File,
    start: u64,
    budget: u64,
    max_line: usize,
    mut each: impl FnMut(Line<'_>),
) -> std::io::Result<(u64, bool)> {
    file.seek(SeekFrom::Start(start))?;
    // Most session files are small: a block of their size (zeroed memory is not free).
    let left = file.metadata().map_or(READ_BLOCK as u64, |m| m.len().saturating_sub(start));
    let mut buf = vec![0u8; (left as usize).saturating_add(1).clamp(4096, READ_BLOCK)];
    // `buf[pos..filled]` is read and not yet consumed; `buf[pos..searched]` holds no newline.
    let (mut pos, mut searched, mut filled) = (0, 0, 0);
    let mut offset = start;
    loop {
        if offset - start >= budget {
            return Ok((offset, true));
        }
        if let Some(at) = memchr::memchr(b'\n', &buf[searched..filled]) {
            let end = searched + at;
            let mut line = &buf[pos..end];
            if line.len() > max_line {
                each(Line { offset, bytes: &[], too_long: Some(line.len() as u64) });
            } else {
                if line.last() == Some(&b'\r') {
                    line = &line[..line.len() - 1];
                }
                each(Line { offset, bytes: line, too_long: None });
            }
            offset += (end + 1 - pos) as u64;
            pos = end + 1;
            searched = pos;
            continue;
        }
        searched = filled;
        if filled - pos > max_line {
            // Too long to hold: count the rest of it in blocks up to its newline.
            let Some((len, after, n)) = skip_line(file, &mut buf)? else { return Ok((offset, false)) };
            let len = (filled - pos) as u64 + len;
            each(Line { offset, bytes: &[], too_long: Some(len) });
            offset += len + 1;
            (pos, searched, filled) = (after, after, n);
            continue;
        }
        // More bytes are needed: keep the partial line at the front, and make room.
        if pos > 0 {
            buf.copy_within(pos..filled, 0);
            (filled, searched, pos) = (filled - pos, searched - pos, 0);
        }
        if filled == buf.len() {
            // Room for one byte over the cap at most: enough to tell a line is too long.
            buf.resize((buf.len() * 2).min(max_line + 1).max(buf.len() + 1), 0);
        }
        let n = read_some(file, &mut buf[filled..])?;
        if n == 0 {
            // Unterminated: consume only a complete JSON value.
            let rest = &buf[pos..filled];
            let whole = !rest.is_empty()
                && (serde_json::from_slice::<serde::de::IgnoredAny>(trim_ascii(rest)).is_ok()
                    || parse_line(rest).is_some());
            if whole {
                each(Line { offset, bytes: rest, too_long: None });
                offset += rest.len() as u64;
            }
            return Ok((offset, false));
        }
        filled += n;
    }
}

/// Reads on, in blocks of `buf`, to the next newline: the bytes before it, where in `buf`
/// the bytes after it start, and how many bytes `buf` holds. `None` at the end of the
/// file first.
fn skip_line(file: &mut File, buf: &mut [u8]) -> std::io::Result<Option<(u64, usize, usize)>> {
    let mut len = 0u64;
    loop {
        let n = read_some(file, buf)?;
        if n == 0 {
            return Ok(None);
        }
        if let Some(at) = memchr::memchr(b'\n', &buf[..n]) {
            return Ok(Some((len + at as u64, at + 1, n)));
        }
        len += n as u64;
    }
}

fn read_some(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match file.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
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
        let end = read_complete_lines(&mut file, 0, |l| lines.push(l.bytes.to_vec())).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(end, 16);
        std::fs::write(&path, "{\"a\":1}\n{\"b\":2}\n{\"c\":3}").unwrap();
        let mut file = File::open(&path).unwrap();
        let mut more = Vec::new();
        let end = read_complete_lines(&mut file, end, |l| more.push(l.bytes.to_vec())).unwrap();
        assert_eq!(more.len(), 1);
        assert_eq!(more[0], b"{\"c\":3}");
        assert_eq!(end, 23);
    }

    #[test]
    fn lines_across_and_beyond_the_read_block_come_back_whole_in_parts() {
        // Short lines, CRLF, and lines longer than the block (the buffer grows), in parts.
        let mut lines: Vec<Vec<u8>> = Vec::new();
        for i in 0..3000usize {
            let len = match i % 1000 {
                7 => 3 * READ_BLOCK + 11,
                500 => READ_BLOCK - 1,
                _ => i % 300,
            };
            lines.push(format!("{{\"i\":{i},\"t\":\"{}\"}}", "x".repeat(len)).into_bytes());
        }
        let mut file_bytes = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            file_bytes.extend_from_slice(line);
            file_bytes.extend_from_slice(if i % 2 == 0 { b"\r\n" } else { b"\n" });
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.jsonl");
        std::fs::write(&path, &file_bytes).unwrap();
        for budget in [1, 700_000, u64::MAX] {
            let mut file = File::open(&path).unwrap();
            let (mut read, mut offsets, mut start) = (Vec::new(), Vec::new(), 0);
            loop {
                let (end, more) = read_complete_lines_upto(&mut file, start, budget, |l| {
                    offsets.push(l.offset);
                    read.push(l.bytes.to_vec());
                })
                .unwrap();
                start = end;
                if !more {
                    break;
                }
            }
            assert_eq!(start, file_bytes.len() as u64, "budget {budget}");
            assert!(read == lines, "budget {budget}: lines differ");
            for (offset, line) in offsets.iter().zip(&lines) {
                assert!(file_bytes[*offset as usize..].starts_with(line));
            }
        }
    }

    #[test]
    fn lines_over_the_cap_are_counted_not_held_and_the_rest_still_comes_back() {
        for cap in [5usize, 100, 5000] {
            // Over the cap inside one buffer, far over it (read past in blocks), at it.
            let lines: Vec<Vec<u8>> = vec![
                b"a".to_vec(),
                vec![b'x'; cap + 1],
                b"bb".to_vec(),
                vec![b'y'; cap * 3 + 3 * READ_BLOCK],
                Vec::new(),
                vec![b'e'; cap],
                b"{}".to_vec(),
            ];
            let mut file_bytes: Vec<u8> = lines.iter().flat_map(|l| l.iter().copied().chain([b'\n'])).collect();
            let whole = file_bytes.len() as u64;
            // An unterminated line over the cap at the end may still be being written.
            file_bytes.extend(vec![b'z'; cap + 10]);
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("long.jsonl");
            std::fs::write(&path, &file_bytes).unwrap();
            for budget in [1, u64::MAX] {
                let mut file = File::open(&path).unwrap();
                let (mut seen, mut start) = (Vec::new(), 0);
                loop {
                    let (end, more) = read_lines(&mut file, start, budget, cap, |l| {
                        seen.push((l.offset, l.bytes.to_vec(), l.too_long));
                    })
                    .unwrap();
                    start = end;
                    if !more {
                        break;
                    }
                }
                assert_eq!(start, whole, "cap {cap}, budget {budget}: the tail is left");
                assert_eq!(seen.len(), lines.len());
                let mut offset = 0;
                for ((at, bytes, too_long), line) in seen.iter().zip(&lines) {
                    assert_eq!(*at, offset);
                    if line.len() > cap {
                        assert!(bytes.is_empty());
                        assert_eq!(*too_long, Some(line.len() as u64));
                    } else {
                        assert_eq!((bytes, *too_long), (line, None));
                    }
                    offset += line.len() as u64 + 1;
                }
            }
        }
    }
}
