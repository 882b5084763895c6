//! Line-level input for `mma`'s text formats (case files, hardware records).
//!
//! Every format the project reads is line-oriented, and its contract is that a problem costs
//! at most the line it is on. [`Lines`] reads any [`BufRead`] one line at a time, in constant
//! memory, and hands each line back with its 1-based number:
//!
//! - line endings `\n`, `\r\n` and a lone `\r` (old Mac files) all end a line;
//! - a UTF-8 byte-order mark at the start of the input is dropped;
//! - a line that is not valid UTF-8 is [`Line::Bytes`], which the caller reports or, for a
//!   comment, passes through; the following lines are unaffected;
//! - a line longer than the limit is [`Line::TooLong`] (its bytes are skipped, not stored), so
//!   one huge line cannot exhaust memory and lose the lines already done.
//!
//! The standard library's `BufRead::lines` ends lines only at `\n`, stops at the first invalid
//! UTF-8 byte and grows without bound; no maintained crate combines the three properties
//! above, so this small reader does.

use std::io::{self, BufRead};

/// The longest line [`Lines::new`] stores: 16 MiB, far beyond any case (a K = 256 fp64 case
/// is about 5 KiB).
pub const MAX_LINE: usize = 16 << 20;

/// One line of input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A line of valid UTF-8, without its line ending.
    Text(String),
    /// A line that is not valid UTF-8: its bytes, and the offset of the first invalid byte.
    Bytes { bytes: Vec<u8>, invalid_at: usize },
    /// A line longer than the limit; its `len` bytes were skipped.
    TooLong { len: usize },
}

impl Line {
    /// Whether the line is blank or a comment (`#` or `//` after leading white space), judged
    /// on its bytes, so that a comment with invalid UTF-8 is still a comment.
    pub fn is_comment(&self) -> bool {
        let bytes = match self {
            Line::Text(s) => s.as_bytes(),
            Line::Bytes { bytes, .. } => bytes,
            Line::TooLong { .. } => return false,
        };
        let t = bytes.trim_ascii_start();
        t.is_empty() || t.starts_with(b"#") || t.starts_with(b"//")
    }

    /// The line's bytes as they were read (nothing for a line too long to keep).
    pub fn bytes(&self) -> &[u8] {
        match self {
            Line::Text(s) => s.as_bytes(),
            Line::Bytes { bytes, .. } => bytes,
            Line::TooLong { .. } => &[],
        }
    }

    /// Why the line cannot be read as text, or `None` for a text line.
    pub fn problem(&self) -> Option<String> {
        match self {
            Line::Text(_) => None,
            Line::Bytes { invalid_at, .. } => {
                Some(format!("not valid UTF-8 (byte {})", invalid_at + 1))
            }
            Line::TooLong { len } => Some(format!(
                "line of {len} bytes is longer than the limit of {} bytes",
                MAX_LINE
            )),
        }
    }
}

/// Reads lines (see the crate docs). An I/O error ends the iteration after it is returned.
pub struct Lines<R> {
    inner: R,
    number: usize,
    max: usize,
    /// The previous line ended with `\r`: a `\n` right after it belongs to that ending.
    after_cr: bool,
    done: bool,
}

impl<R: BufRead> Lines<R> {
    pub fn new(inner: R) -> Lines<R> {
        Lines::with_limit(inner, MAX_LINE)
    }

    /// As [`Lines::new`] with another limit on the stored length of a line.
    pub fn with_limit(inner: R, max: usize) -> Lines<R> {
        Lines {
            inner,
            number: 0,
            max,
            after_cr: false,
            done: false,
        }
    }

    /// Reads the bytes of the next line into `buf` (up to the limit); returns the line's full
    /// length, or `None` at the end of input.
    fn read_raw(&mut self, buf: &mut Vec<u8>) -> io::Result<Option<usize>> {
        let mut len = 0usize;
        let mut any = false;
        loop {
            let avail = match self.inner.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                return Ok(any.then_some(len));
            }
            if self.after_cr {
                self.after_cr = false;
                if avail[0] == b'\n' {
                    self.inner.consume(1);
                    continue;
                }
            }
            any = true;
            let (take, end) = match memchr::memchr2(b'\n', b'\r', avail) {
                Some(i) => (i, Some(avail[i])),
                None => (avail.len(), None),
            };
            if len + take <= self.max {
                buf.extend_from_slice(&avail[..take]);
            }
            len += take;
            self.inner.consume(take + usize::from(end.is_some()));
            match end {
                Some(b'\r') => {
                    self.after_cr = true;
                    return Ok(Some(len));
                }
                Some(_) => return Ok(Some(len)),
                None => {}
            }
        }
    }
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = io::Result<(usize, Line)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut buf = Vec::new();
        let len = match self.read_raw(&mut buf) {
            Ok(Some(len)) => len,
            Ok(None) => {
                self.done = true;
                return None;
            }
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        self.number += 1;
        if self.number == 1 && buf.starts_with(b"\xef\xbb\xbf") {
            buf.drain(..3);
        }
        let line = if len > self.max {
            Line::TooLong { len }
        } else {
            match String::from_utf8(buf) {
                Ok(s) => Line::Text(s),
                Err(e) => Line::Bytes {
                    invalid_at: e.utf8_error().valid_up_to(),
                    bytes: e.into_bytes(),
                },
            }
        };
        Some(Ok((self.number, line)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    fn read(bytes: &[u8], max: usize, chunk: usize) -> Vec<(usize, Line)> {
        // A tiny buffer puts line endings (and \r\n pairs) across buffer boundaries.
        Lines::with_limit(BufReader::with_capacity(chunk, bytes), max)
            .map(|r| r.unwrap())
            .collect()
    }

    fn text(n: usize, s: &str) -> (usize, Line) {
        (n, Line::Text(s.to_string()))
    }

    #[test]
    fn every_line_ending_and_buffer_boundary() {
        let input = b"a\nbb\r\nccc\rdddd\r\n\r\neee";
        let want = vec![
            text(1, "a"),
            text(2, "bb"),
            text(3, "ccc"),
            text(4, "dddd"),
            text(5, ""),
            text(6, "eee"),
        ];
        for chunk in 1..=input.len() + 1 {
            assert_eq!(read(input, 100, chunk), want, "buffer of {chunk}");
        }
        // A final line ending does not add an empty line; CR then EOF neither.
        assert_eq!(read(b"x\r", 100, 4), vec![text(1, "x")]);
        assert_eq!(read(b"", 100, 4), vec![]);
        assert_eq!(read(b"\n", 100, 4), vec![text(1, "")]);
    }

    #[test]
    fn bom_only_at_the_start() {
        let input = b"\xef\xbb\xbfa\n\xef\xbb\xbfb\n";
        let lines = read(input, 100, 2);
        assert_eq!(lines[0], text(1, "a"));
        assert_eq!(lines[1], text(2, "\u{feff}b"));
    }

    #[test]
    fn invalid_utf8_costs_one_line() {
        let lines = read(b"ok\n# caf\xe9\n{\xff}\nlast\n", 100, 3);
        assert_eq!(lines[0], text(1, "ok"));
        assert!(lines[1].1.is_comment());
        assert_eq!(
            lines[2].1,
            Line::Bytes {
                bytes: b"{\xff}".to_vec(),
                invalid_at: 1
            }
        );
        assert_eq!(lines[2].1.problem().unwrap(), "not valid UTF-8 (byte 2)");
        assert!(!lines[2].1.is_comment());
        assert_eq!(lines[3], text(4, "last"));
    }

    #[test]
    fn long_lines_are_skipped_not_stored() {
        let mut input = vec![b'x'; 50];
        input.extend_from_slice(b"\nshort\n");
        let lines = read(&input, 10, 7);
        assert_eq!(lines[0], (1, Line::TooLong { len: 50 }));
        assert_eq!(lines[1], text(2, "short"));
        // Exactly at the limit is kept.
        assert_eq!(read(b"0123456789\n", 10, 3), vec![text(1, "0123456789")]);
    }
}
