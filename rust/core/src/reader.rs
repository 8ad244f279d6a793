//! A bounded little-endian cursor over one chunk's payload.
//!
//! Every count read from the file is checked against the bytes that are left before anything is
//! allocated, so that no input can make the parser allocate more than the file could hold.

use std::io::Cursor;

use crate::error::{Location, ParseError};

pub use crate::raw::stream::Record;

pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    /// Absolute file offset of `data[0]`, for error messages.
    base: u64,
    chunk: &'a str,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], base: u64, chunk: &'a str) -> Self {
        Reader {
            data,
            pos: 0,
            base,
            chunk,
        }
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    /// Goes back to an earlier position, to read the same bytes another way.
    pub fn seek(&mut self, pos: usize) {
        self.pos = pos.min(self.data.len());
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub fn is_at_end(&self) -> bool {
        self.pos == self.data.len()
    }

    /// The absolute file offset of the cursor.
    pub fn location(&self) -> Location {
        self.location_at(self.pos)
    }

    pub fn location_at(&self, pos: usize) -> Location {
        Location {
            chunk: self.chunk.to_string(),
            offset: self.base + pos as u64,
        }
    }

    pub fn truncated(&self, what: impl Into<String>, needed: u64) -> ParseError {
        ParseError::Truncated {
            at: self.location(),
            what: what.into(),
            needed,
            available: self.remaining() as u64,
        }
    }

    pub fn bad_value(
        &self,
        at: usize,
        what: impl Into<String>,
        expected: impl Into<String>,
        found: impl ToString,
    ) -> ParseError {
        ParseError::BadValue {
            at: self.location_at(at),
            what: what.into(),
            expected: expected.into(),
            found: found.to_string(),
        }
    }

    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8], ParseError> {
        if n > self.remaining() {
            return Err(self.truncated(what, n as u64));
        }
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    pub fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], ParseError> {
        let bytes = self.bytes(N, what)?;
        Ok(bytes.try_into().expect("slice has length N"))
    }

    pub fn u16(&mut self, what: &str) -> Result<u16, ParseError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    pub fn u32(&mut self, what: &str) -> Result<u32, ParseError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    /// Checks that `count` elements of `element_size` bytes fit in what is left.
    pub fn check_count(
        &self,
        count: u64,
        element_size: u64,
        what: &str,
    ) -> Result<usize, ParseError> {
        let fits = count
            .checked_mul(element_size)
            .is_some_and(|n| n <= self.remaining() as u64);
        if fits {
            Ok(count as usize)
        } else {
            Err(ParseError::CountTooLarge {
                at: self.location(),
                what: what.to_string(),
                count,
                element_size,
                available: self.remaining() as u64,
            })
        }
    }

    /// A byte block whose length is `count × element_size`, checked before it is taken.
    pub fn counted_bytes(
        &mut self,
        count: u64,
        element_size: u64,
        what: &str,
    ) -> Result<&'a [u8], ParseError> {
        let n = self.check_count(count, element_size, what)?;
        self.bytes(n * element_size as usize, what)
    }

    pub fn records<T: Record>(&mut self, count: u64, what: &str) -> Result<Vec<T>, ParseError> {
        let bytes = self.counted_bytes(count, T::SIZE as u64, what)?;
        Ok(bytes.chunks_exact(T::SIZE).map(decode_record).collect())
    }

    /// `u32 count` followed by that many records.
    pub fn counted_records<T: Record>(&mut self, what: &str) -> Result<Vec<T>, ParseError> {
        let count = self.u32(&format!("number of {what}"))?;
        self.records(count as u64, what)
    }

    pub fn u32s(&mut self, count: u64, what: &str) -> Result<Vec<u32>, ParseError> {
        let bytes = self.counted_bytes(count, 4, what)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect())
    }

    /// Fails unless every byte of the payload was consumed.
    pub fn expect_end(&self, what: &str) -> Result<(), ParseError> {
        if self.is_at_end() {
            Ok(())
        } else {
            Err(ParseError::TrailingBytes {
                at: self.location(),
                what: what.to_string(),
                count: self.remaining() as u64,
            })
        }
    }
}

fn decode_record<T: Record>(bytes: &[u8]) -> T {
    // The slice has exactly T::SIZE bytes and every field of a fixed-size record accepts any
    // bit pattern, so binrw cannot fail here.
    T::read_le(&mut Cursor::new(bytes)).expect("fixed-size record reads from a full slice")
}

/// Little-endian output for one chunk payload.
#[derive(Default)]
pub struct Writer {
    pub bytes: Vec<u8>,
}

impl Writer {
    pub fn with_capacity(n: usize) -> Self {
        Writer {
            bytes: Vec::with_capacity(n),
        }
    }

    pub fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }

    pub fn u16(&mut self, v: u16) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn i32(&mut self, v: i32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn raw(&mut self, b: &[u8]) {
        self.bytes.extend_from_slice(b);
    }

    pub fn u32s(&mut self, values: &[u32]) {
        self.bytes.reserve(values.len() * 4);
        for v in values {
            self.u32(*v);
        }
    }

    pub fn u16s(&mut self, values: &[u16]) {
        for v in values {
            self.u16(*v);
        }
    }

    pub fn record<T: Record>(&mut self, record: &T) {
        let start = self.bytes.len();
        let mut cursor = Cursor::new(&mut self.bytes);
        cursor.set_position(start as u64);
        record
            .write_le(&mut cursor)
            .expect("writing a record into memory cannot fail");
        debug_assert_eq!(self.bytes.len() - start, T::SIZE);
    }

    pub fn records<T: Record>(&mut self, records: &[T]) {
        self.bytes.reserve(records.len() * T::SIZE);
        for r in records {
            self.record(r);
        }
    }
}
