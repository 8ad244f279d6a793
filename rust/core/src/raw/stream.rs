//! Where the layouts of [`crate::raw`] meet the bytes: the stream a chunk's payload is read from,
//! the parsers the layouts name for their counted blocks, and the translation of binrw's errors
//! into [`ParseError`] and [`BuildError`].
//!
//! Every counted block is read through [`records`] or [`elements`], which check the count against
//! the bytes that are left before anything is allocated, so that no input can make the parser
//! allocate more than the file could hold.

use std::fmt;
use std::io::{self, Cursor, Read, Seek, SeekFrom, Write};

use binrw::error::{BacktraceFrame, ContextExt};
use binrw::{BinRead, BinResult, BinWrite, Endian};

use crate::container::Tag;
use crate::error::{BuildError, Location, ParseError};

/// A record with a fixed on-disk size.
pub trait Record:
    for<'a> BinRead<Args<'a> = ()> + for<'a> BinWrite<Args<'a> = ()> + 'static
{
    const SIZE: usize;
}

macro_rules! primitive_records {
    ($($t:ty),*) => { $(impl Record for $t { const SIZE: usize = std::mem::size_of::<$t>(); })* };
}
primitive_records!(u8, u16, u32, i32, [u8; 4], [u8; 8]);

/// One chunk's payload as a binrw stream. It remembers where a read last ran out of bytes, which
/// binrw's end-of-file error does not say.
pub(crate) struct Payload<'a> {
    data: &'a [u8],
    pos: u64,
    /// Position and length of the last read that found too few bytes.
    short_read: Option<(u64, u64)>,
}

impl<'a> Payload<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Payload {
            data,
            pos: 0,
            short_read: None,
        }
    }

    fn left(&self) -> &'a [u8] {
        self.data.get(self.pos as usize..).unwrap_or_default()
    }
}

impl Read for Payload<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.left();
        let n = buf.len().min(left.len());
        buf[..n].copy_from_slice(&left[..n]);
        self.pos += n as u64;
        Ok(n)
    }

    fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()> {
        let left = self.left();
        if buf.len() > left.len() {
            self.short_read = Some((self.pos, buf.len() as u64));
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        buf.copy_from_slice(&left[..buf.len()]);
        self.pos += buf.len() as u64;
        Ok(())
    }

    fn read_to_end(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        let left = self.left();
        buf.extend_from_slice(left);
        self.pos += left.len() as u64;
        Ok(left.len())
    }
}

impl Seek for Payload<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => (self.data.len() as u64).checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = target.ok_or(io::ErrorKind::InvalidInput)?;
        Ok(self.pos)
    }

    fn stream_position(&mut self) -> io::Result<u64> {
        Ok(self.pos)
    }
}

/// What a block of a chunk is, as an error names it: the element of a list ("model 3") or a
/// block ("vertices"), and the tile or TRAK model it is, if either. Attached to binrw errors as
/// backtrace frames.
#[derive(Debug)]
struct Label {
    text: String,
    culprit: Option<Culprit>,
}

/// The part of a level a label names, as [`Location`] carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Culprit {
    /// A MAP tile.
    Tile(u32),
    /// A TRAK model.
    Model(u32),
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Adds a label to an error, outside the labels it has.
pub(crate) fn labelled(err: binrw::Error, label: impl Into<String>) -> binrw::Error {
    with_label(err, label.into(), None)
}

/// Adds the label of a tile or TRAK model ("tile 3", "model 3") to an error: the error's
/// location names it.
pub(crate) fn labelled_culprit(err: binrw::Error, culprit: Culprit) -> binrw::Error {
    let text = match culprit {
        Culprit::Tile(i) => format!("tile {i}"),
        Culprit::Model(i) => format!("model {i}"),
    };
    with_label(err, text, Some(culprit))
}

fn with_label(err: binrw::Error, text: String, culprit: Option<Culprit>) -> binrw::Error {
    err.with_context(BacktraceFrame::Custom(Box::new(Label { text, culprit })))
}

/// What was wrong at a position of a payload; the chunk and its offset in the file are added
/// where the chunk is read.
#[derive(Debug)]
pub(crate) enum Fault {
    CountTooLarge {
        what: String,
        count: u64,
        element_size: u64,
        available: u64,
    },
    BadValue {
        what: String,
        expected: String,
        found: String,
    },
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::CountTooLarge { what, count, .. } => write!(f, "{what}: {count} entries"),
            Fault::BadValue {
                what,
                expected,
                found,
            } => write!(f, "{what}: expected {expected}, found {found}"),
        }
    }
}

impl Fault {
    pub(crate) fn at(self, pos: u64) -> binrw::Error {
        binrw::Error::Custom {
            pos,
            err: Box::new(self),
        }
    }
}

/// A value that is not what the layout allows, at `pos`.
pub(crate) fn bad_value(
    pos: u64,
    what: impl Into<String>,
    expected: impl Into<String>,
    found: impl ToString,
) -> binrw::Error {
    Fault::BadValue {
        what: what.into(),
        expected: expected.into(),
        found: found.to_string(),
    }
    .at(pos)
}

/// Whether a reading failed for want of bytes: a count larger than what is left, or a read past
/// the end.
pub(crate) fn ran_out(err: &binrw::Error) -> bool {
    match err {
        binrw::Error::Backtrace(b) => ran_out(&b.error),
        binrw::Error::Custom { err, .. } => {
            matches!(
                err.downcast_ref::<Fault>(),
                Some(Fault::CountTooLarge { .. })
            )
        }
        binrw::Error::Io(e) => e.kind() == io::ErrorKind::UnexpectedEof,
        _ => false,
    }
}

/// A value the writer cannot express in the layout.
pub(crate) fn unwritable(err: BuildError) -> binrw::Error {
    binrw::Error::Custom {
        pos: 0,
        err: Box::new(err),
    }
}

pub(crate) fn bytes_left<R: Seek>(r: &mut R) -> BinResult<(u64, u64)> {
    let pos = r.stream_position()?;
    let end = r.seek(SeekFrom::End(0))?;
    r.seek(SeekFrom::Start(pos))?;
    Ok((pos, end.saturating_sub(pos)))
}

/// Fails unless `count` elements of at least `size` bytes fit in what is left.
pub(crate) fn check_count<R: Seek>(
    r: &mut R,
    count: u64,
    size: u64,
    what: &str,
) -> BinResult<usize> {
    let (pos, available) = bytes_left(r)?;
    if count.checked_mul(size).is_some_and(|n| n <= available) {
        Ok(count as usize)
    } else {
        Err(Fault::CountTooLarge {
            what: what.to_string(),
            count,
            element_size: size,
            available,
        }
        .at(pos))
    }
}

/// Parser of `count` fixed-size records, checked against the bytes left first.
pub(crate) fn records<T: Record, R: Read + Seek>(
    count: impl Into<u64>,
    what: &'static str,
) -> impl FnOnce(&mut R, Endian, ()) -> BinResult<Vec<T>> {
    records_of_at_least(count, T::SIZE as u64, what)
}

/// Like [`records`], when each record stands for more bytes than its own (the other blocks of a
/// tile): `count × size` bytes must be left.
pub(crate) fn records_of_at_least<T: Record, R: Read + Seek>(
    count: impl Into<u64>,
    size: u64,
    what: &'static str,
) -> impl FnOnce(&mut R, Endian, ()) -> BinResult<Vec<T>> {
    let count = count.into();
    move |r, endian, ()| {
        let n = check_count(r, count, size, what)?;
        binrw::helpers::count(n)(r, endian, ())
    }
}

/// Parser of `count` elements of variable size (at least `min_size` bytes each), each read with
/// `args`; an error in one names it (`label i`).
pub(crate) fn elements<T, R, A>(
    count: impl Into<u64>,
    min_size: u64,
    label: &'static str,
) -> impl FnOnce(&mut R, Endian, A) -> BinResult<Vec<T>>
where
    T: for<'a> BinRead<Args<'a> = A>,
    R: Read + Seek,
    A: Clone,
{
    let count = count.into();
    move |r, endian, args| {
        let n = check_count(r, count, min_size, &format!("{label}s"))?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let element = T::read_options(r, endian, args.clone())
                .map_err(|e| labelled(e, format!("{label} {i}")))?;
            out.push(element);
        }
        Ok(out)
    }
}

/// Writer of a list whose elements an error names (`label i`).
pub(crate) fn write_elements<T, W, A>(
    label: &'static str,
) -> impl FnOnce(&Vec<T>, &mut W, Endian, A) -> BinResult<()>
where
    T: for<'a> BinWrite<Args<'a> = A>,
    W: Write + Seek,
    A: Clone,
{
    move |list, w, endian, args| {
        for (i, element) in list.iter().enumerate() {
            element
                .write_options(w, endian, args.clone())
                .map_err(|e| labelled(e, format!("{label} {i}")))?;
        }
        Ok(())
    }
}

/// Parser of everything up to the end of the payload.
pub(crate) fn rest<R: Read + Seek>(r: &mut R, _: Endian, (): ()) -> BinResult<Vec<u8>> {
    let mut out = Vec::new();
    r.read_to_end(&mut out)?;
    Ok(out)
}

/// A list's length as a u32 count, or the error that it is too long for one.
pub(crate) fn u32_count(n: usize, what: &str) -> Result<u32, BuildError> {
    u32::try_from(n).map_err(|_| too_many(n, what, u32::MAX.into()))
}

/// A list's length as a u16 count, or the error that it is too long for one.
pub(crate) fn u16_count(n: usize, what: &str) -> Result<u16, BuildError> {
    u16::try_from(n).map_err(|_| too_many(n, what, u16::MAX.into()))
}

fn too_many(n: usize, what: &str, max: u64) -> BuildError {
    BuildError::TooMany {
        what: what.to_string(),
        count: n as u64,
        max,
    }
}

/// The layout of a whole chunk's payload.
pub(crate) trait ChunkLayout: BinRead + BinWrite {
    const TAG: Tag;
    /// What the payload ends with, as the error names it when bytes are left after it.
    const LAST: &'static str;
}

/// Reads one whole chunk payload with its layout `T`; every byte must be used.
pub(crate) fn read_chunk<T: ChunkLayout>(
    data: &[u8],
    base: u64,
    args: <T as BinRead>::Args<'_>,
) -> Result<T, ParseError> {
    let chunk = T::TAG.to_string();
    let (value, used) = read_part(data, base, &chunk, args)?;
    if used != data.len() {
        return Err(ParseError::TrailingBytes {
            at: Location {
                chunk,
                offset: base + used as u64,
                ..Location::default()
            },
            what: T::LAST.to_string(),
            count: (data.len() - used) as u64,
        });
    }
    Ok(value)
}

/// Reads a value with its layout `T` from the start of `data`, a payload of `chunk` at `base`
/// in the file; the value and the bytes it used.
pub(crate) fn read_part<T: BinRead>(
    data: &[u8],
    base: u64,
    chunk: &str,
    args: T::Args<'_>,
) -> Result<(T, usize), ParseError> {
    let mut payload = Payload::new(data);
    let value = T::read_options(&mut payload, Endian::Little, args)
        .map_err(|e| parse_error(e, &payload, chunk, base))?;
    Ok((value, payload.pos as usize))
}

/// Writes one chunk payload with its layout `T`.
pub(crate) fn write_chunk<T: ChunkLayout>(
    value: &T,
    args: <T as BinWrite>::Args<'_>,
) -> Result<Vec<u8>, BuildError> {
    write_part(value, args, &T::TAG.name())
}

/// Writes a value with its layout `T`, a part of `chunk`.
pub(crate) fn write_part<T: BinWrite>(
    value: &T,
    args: T::Args<'_>,
    chunk: &str,
) -> Result<Vec<u8>, BuildError> {
    let mut out = Cursor::new(Vec::new());
    value
        .write_options(&mut out, Endian::Little, args)
        .map_err(|e| build_error(e, chunk))?;
    Ok(out.into_inner())
}

/// A binrw error split into the error itself and its labels, outermost first.
fn unwind(err: binrw::Error) -> (binrw::Error, Vec<BacktraceFrame>) {
    match err {
        binrw::Error::Backtrace(b) => {
            let mut frames = b.frames;
            frames.reverse();
            (*b.error, frames)
        }
        e => (e, Vec::new()),
    }
}

fn label_frames(frames: &[BacktraceFrame]) -> impl Iterator<Item = &Label> {
    frames.iter().filter_map(|f| match f {
        BacktraceFrame::Custom(c) => c.downcast_ref::<Label>(),
        _ => None,
    })
}

fn labels(frames: &[BacktraceFrame]) -> Vec<String> {
    label_frames(frames).map(|l| l.text.clone()).collect()
}

/// The field binrw was reading when the bytes ran out, in words (`tile_count` → "tile count").
fn field_name(frames: &[BacktraceFrame]) -> Option<String> {
    let message = frames.iter().rev().find_map(|f| match f {
        BacktraceFrame::Full { message, .. } => Some(message.as_ref()),
        BacktraceFrame::Message(message) => Some(message.as_ref()),
        _ => None,
    })?;
    let name = message.split('\'').nth(1)?;
    Some(name.replace('_', " "))
}

fn joined(labels: Vec<String>, leaf: Option<String>) -> String {
    labels
        .into_iter()
        .chain(leaf)
        .collect::<Vec<_>>()
        .join(": ")
}

fn parse_error(err: binrw::Error, payload: &Payload, chunk: &str, base: u64) -> ParseError {
    let (err, frames) = unwind(err);
    let labels = labels(&frames);
    // The innermost tile and model: the part being read where the reading stopped.
    let culprit = |of: fn(Culprit) -> Option<u32>| {
        label_frames(&frames)
            .filter_map(|l| l.culprit.and_then(of))
            .last()
    };
    let at = |pos: u64| Location {
        chunk: chunk.to_string(),
        offset: base + pos,
        tile: culprit(|c| match c {
            Culprit::Tile(i) => Some(i),
            Culprit::Model(_) => None,
        }),
        model: culprit(|c| match c {
            Culprit::Model(i) => Some(i),
            Culprit::Tile(_) => None,
        }),
    };
    match err {
        binrw::Error::Custom { pos, err } => match err.downcast::<Fault>() {
            Ok(fault) => match *fault {
                Fault::CountTooLarge {
                    what,
                    count,
                    element_size,
                    available,
                } => ParseError::CountTooLarge {
                    at: at(pos),
                    what: joined(labels, Some(what)),
                    count,
                    element_size,
                    available,
                },
                Fault::BadValue {
                    what,
                    expected,
                    found,
                } => ParseError::BadValue {
                    at: at(pos),
                    what: joined(labels, Some(what)),
                    expected,
                    found,
                },
            },
            Err(other) => ParseError::BadValue {
                at: at(pos),
                what: joined(labels, field_name(&frames)),
                expected: "what the layout allows".into(),
                found: other.to_string(),
            },
        },
        binrw::Error::Io(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
            let (pos, needed) = payload.short_read.unwrap_or((payload.pos, 1));
            ParseError::Truncated {
                at: at(pos),
                what: joined(labels, field_name(&frames)),
                needed,
                available: (payload.data.len() as u64).saturating_sub(pos),
            }
        }
        binrw::Error::AssertFail { pos, message } => ParseError::BadValue {
            at: at(pos),
            what: joined(labels, field_name(&frames)),
            expected: message,
            found: "other bytes".into(),
        },
        other => ParseError::BadValue {
            at: at(payload.pos),
            what: joined(labels, field_name(&frames)),
            expected: "what the layout allows".into(),
            found: other.to_string(),
        },
    }
}

fn build_error(err: binrw::Error, chunk: &str) -> BuildError {
    let (err, frames) = unwind(err);
    let error = match err {
        binrw::Error::Custom { err, .. } => match err.downcast::<BuildError>() {
            Ok(e) => *e,
            Err(other) => BuildError::Inconsistent {
                what: chunk.trim_end().to_string(),
                problem: other.to_string(),
            },
        },
        other => BuildError::Inconsistent {
            what: chunk.trim_end().to_string(),
            problem: other.to_string(),
        },
    };
    labels(&frames)
        .iter()
        .rev()
        .fold(error, |e, label| e.within(label))
}
