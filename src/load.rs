//! Reading a `.loop` file: bytes → text → AST → checks.

use crate::check;
use crate::problem::{Diag, FileProblems, Problem};
use crate::syntax::{self, ast::File, ast::Span};
use std::path::Path;

/// A parsed and checked file.
#[derive(Debug)]
pub struct Loaded {
    /// The name shown in reports (the path as given).
    pub name: String,
    pub src: String,
    pub file: File,
    /// Warnings of the check pass (errors would have stopped the load).
    pub warnings: Vec<Problem>,
}

impl Loaded {
    /// The `title`, or the file name.
    pub fn title(&self) -> String {
        self.file.title.as_ref().map_or_else(|| self.name.clone(), |t| t.value.clone())
    }

    /// The note for a file whose main module has no statement (it is empty,
    /// or holds only comments, directives and an `expect` block): a run of it
    /// schedules nothing and prints no line. The file's name is escaped for a
    /// terminal. None for any other file.
    pub fn no_statements_note(&self) -> Option<String> {
        self.file.body.is_empty().then(|| {
            format!(
                "{} has no statements: nothing is scheduled, so no line is printed",
                crate::term::escape(&self.name)
            )
        })
    }
}

/// Why a file could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// It could not be read.
    Io { name: String, error: std::io::Error },
    /// It is not a valid `.loop` file.
    Invalid(FileProblems),
}

/// The largest `.loop` file read, in bytes (16 MiB): far above any real
/// description of a program (the examples are a few hundred bytes), and small
/// enough that parsing the densest file takes seconds and under 1 GB.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Reads, parses and checks the file at `path`.
///
/// # Errors
/// [`LoadError::Io`] if unreadable, not a regular file or pipe (a folder, a
/// device) or larger than [`MAX_FILE_BYTES`] (see [`read`]);
/// [`LoadError::Invalid`] with every problem found.
pub fn load(path: &Path) -> Result<Loaded, LoadError> {
    let name = path.display().to_string();
    let bytes = read(path).map_err(|error| LoadError::Io { name: name.clone(), error })?;
    load_vec(&name, bytes)
}

/// The bytes of the regular file at `path` (a symbolic link is followed), at
/// most [`MAX_FILE_BYTES`] of them. A pipe is read too (`/dev/stdin`, a shell's
/// `<(…)`), to its end; devices, sockets and folders are refused before they
/// are opened (a device may never end, or wait for a key). The cap is checked
/// from the size and enforced while reading (at most one byte more is read),
/// so neither a pipe nor a growing file is read without bound.
///
/// # Errors
/// What opening or reading fails with; `NotFound` for an empty name;
/// `InvalidInput` for what is not a regular file or pipe, or is too large.
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    if path.as_os_str().is_empty() {
        return Err(std::io::Error::new(std::io::ErrorKind::NotFound, "the file name is empty"));
    }
    let regular = |meta: &std::fs::Metadata| -> std::io::Result<()> {
        if meta.is_file() || is_pipe(&meta.file_type()) {
            Ok(())
        } else {
            Err(not_regular(file_kind(&meta.file_type())))
        }
    };
    regular(&std::fs::metadata(path)?)?;
    let file = std::fs::File::open(path)?;
    // What was opened, in case the path changed in between.
    let meta = file.metadata()?;
    regular(&meta)?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read`]'s error for what is not a regular file or pipe (`what`: "a folder", …).
pub fn not_regular(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("not a regular file ({what})"))
}

/// [`read`]'s error for a file larger than [`MAX_FILE_BYTES`].
pub fn too_large() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("it is larger than {} MiB, the most loopsim reads", MAX_FILE_BYTES >> 20),
    )
}

/// Whether `kind` is a named pipe (what `/dev/stdin` is when input is piped).
pub fn is_pipe(kind: &std::fs::FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        kind.is_fifo()
    }
    #[cfg(not(unix))]
    {
        let _ = kind;
        false
    }
}

/// What a file that is not a regular file is: "a folder", "a named pipe", …
pub fn file_kind(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// Parses and checks `bytes` as the file `name`.
///
/// # Errors
/// [`LoadError::Invalid`] with every problem found.
pub fn load_bytes(name: &str, bytes: &[u8]) -> Result<Loaded, LoadError> {
    load_vec(name, bytes.to_vec())
}

/// [`load_bytes`] of bytes it may keep as the text (no copy of a large file).
///
/// # Errors
/// [`LoadError::Invalid`] with every problem found.
pub fn load_vec(name: &str, bytes: Vec<u8>) -> Result<Loaded, LoadError> {
    if bytes.len() >= u32::MAX as usize {
        let p = Diag::TooLarge.at(Span::new(0, 0));
        return Err(LoadError::Invalid(FileProblems::new(name, "", vec![p])));
    }
    if let Some(wide) = wide_encoding(&bytes) {
        let (shown, span) = wide_excerpt(&bytes, wide);
        let p = Diag::WideEncoding {
            encoding: wide.name,
            bom: wide.bom,
        }
        .at(span);
        return Err(LoadError::Invalid(FileProblems::owning(name, shown, vec![p])));
    }
    // A binary file: point at its first NUL, showing the text before it on its line.
    if let Some(at) = has_byte(&bytes, 0).then(|| bytes.iter().position(|&b| b == 0)).flatten() {
        let (shown, nul) = up_to_nul(&bytes, at);
        let p = Diag::BinaryFile { at }.at(Span::new(nul, nul + 1));
        return Err(LoadError::Invalid(FileProblems::new(name, &shown, vec![p])));
    }
    let src = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            let (e, bytes) = (e.utf8_error(), e.into_bytes());
            let lossy = String::from_utf8_lossy(&bytes).into_owned();
            let at = String::from_utf8_lossy(&bytes[..e.valid_up_to()]).len();
            let end = lossy[at..].chars().next().map_or(at, |c| at + c.len_utf8());
            let p = Diag::InvalidUtf8 {
                binary: looks_binary(&bytes),
            }
            .at(Span::new(at, end));
            return Err(LoadError::Invalid(FileProblems::new(name, &lossy, vec![p])));
        }
    };
    if let Some(at) = src.find('\0') {
        let p = Diag::NulByte.at(Span::new(at, at + 1));
        return Err(LoadError::Invalid(FileProblems::new(name, &src, vec![p])));
    }
    if let Some(at) = lone_crs(&src).next() {
        let count = lone_crs(&src).count();
        let p = Diag::LoneCr { count }.at(Span::new(at, at + 1));
        return Err(LoadError::Invalid(FileProblems::new(name, &src, vec![p])));
    }
    let file = match syntax::parse(&src) {
        Ok(file) => file,
        Err(problems) => return Err(LoadError::Invalid(FileProblems::owning(name, src, problems))),
    };
    let problems = check::check(&file);
    if problems.iter().any(|p| !p.warning) {
        return Err(LoadError::Invalid(FileProblems::owning(name, src, problems)));
    }
    if src.len() >= TRIM_AFTER_BYTES {
        release_freed_memory();
    }
    Ok(Loaded {
        name: name.to_string(),
        src,
        file,
        warnings: problems,
    })
}

/// Source size (bytes) from which [`release_freed_memory`] runs after parsing:
/// below it the parse frees too little to matter, and a `loopsim test` of
/// many small files pays nothing.
const TRIM_AFTER_BYTES: usize = 1 << 20;

/// Hands the memory the parse freed (pest's token queues, the chunks' parts
/// before their merge) back to the system before the run, which holds the
/// syntax tree throughout, and fixes glibc's mmap threshold at its initial
/// 128 KiB: glibc keeps freed memory in its arenas and raises that threshold
/// after large frees, so the run's large vectors would grow by copies inside
/// its heap, leaving holes. Without this, the peak RSS of a 1e6-timer file's
/// run was about 14 MB higher (issue 14). The first large parse of a process
/// keeps glibc's adaptive thresholds (their reuse of freed memory saves page
/// faults); a later one (`loopsim test` over several large files) has the
/// fixed one. Elsewhere than glibc, nothing.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only returns free pages of glibc's own arenas to
    // the system, and `mallopt` only sets where glibc serves later requests
    // from; neither touches memory in use.
    unsafe {
        libc::malloc_trim(0);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// The text a binary file's diagnostic shows: its bytes up to and with the
/// first NUL (at byte `at`), invalid UTF-8 replaced by U+FFFD, and where the
/// NUL is in that text (bytes). Nothing after the NUL is shown; the renderer
/// escapes control characters (`\u{0}`), so no byte reaches the terminal raw.
fn up_to_nul(bytes: &[u8], at: usize) -> (String, usize) {
    let mut shown = String::from_utf8_lossy(&bytes[..at]).into_owned();
    let nul = shown.len();
    shown.push('\0');
    (shown, nul)
}

/// Whether `bytes` hold `byte`: a pass without an early exit, which the
/// compiler turns into vector instructions (about 16 times as fast as a
/// search byte by byte over a large file, which holds none).
fn has_byte(bytes: &[u8], byte: u8) -> bool {
    bytes
        .chunks(4096)
        .any(|block| block.iter().fold(false, |seen, &b| seen | (b == byte)))
}

/// Where each carriage return not followed by a line feed is.
fn lone_crs(src: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = src.as_bytes();
    let any = has_byte(bytes, b'\r');
    bytes[..if any { bytes.len() } else { 0 }]
        .iter()
        .enumerate()
        .filter(move |&(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
        .map(|(i, _)| i)
}

/// A two- or four-byte encoding [`wide_encoding`] recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Wide {
    /// "UTF-16 (little-endian)", …
    name: &'static str,
    /// Bytes a code unit: 2 (UTF-16) or 4 (UTF-32).
    unit: usize,
    /// Whether the low byte of a unit comes first.
    little: bool,
    /// The byte-order mark the file starts with ("FF FE", …), if any.
    bom: Option<&'static str>,
}

/// Whether `bytes` (not UTF-8) look like binary data rather than text in
/// another encoding: at least one in twenty of the first 4 KiB is a C0
/// control character other than tab, line feed, form feed and carriage
/// return, or DEL (text in Windows-1252 or Latin-1 has hardly any; random
/// bytes have one in nine).
fn looks_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(WIDE_HEAD)];
    let control = head
        .iter()
        .filter(|&&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r')) || b == 0x7f)
        .count();
    control * 20 >= head.len().max(1)
}

/// "UTF-16 (little-endian)" and the like when `bytes` look like text in a
/// two- or four-byte encoding: by its byte order mark, or (without one) by
/// NUL bytes in every other position of the first 4 KiB, each beside an
/// ASCII character's byte, as ASCII text in UTF-16 has.
fn wide_encoding(bytes: &[u8]) -> Option<Wide> {
    let wide = |name, unit, little, bom| Some(Wide { name, unit, little, bom });
    match bytes {
        [0xFF, 0xFE, 0, 0, ..] => return wide("UTF-32 (little-endian)", 4, true, Some("FF FE 00 00")),
        [0, 0, 0xFE, 0xFF, ..] => return wide("UTF-32 (big-endian)", 4, false, Some("00 00 FE FF")),
        [0xFF, 0xFE, ..] => return wide("UTF-16 (little-endian)", 2, true, Some("FF FE")),
        [0xFE, 0xFF, ..] => return wide("UTF-16 (big-endian)", 2, false, Some("FE FF")),
        _ => {}
    }
    let head = &bytes[..bytes.len().min(WIDE_HEAD) & !1];
    let pairs = head.len() / 2;
    if pairs == 0 {
        return None;
    }
    let zeros = |at: usize| head.iter().skip(at).step_by(2).filter(|&&b| b == 0).count();
    let (even, odd) = (zeros(0), zeros(1));
    // Beside a NUL, the byte of an ASCII character (as in UTF-16 text), at
    // least 9 times in 10: a few binary bytes are no text (`00 01 02 FF`).
    let ascii = |nul: usize| {
        let pairs = head.chunks_exact(2).filter(|p| p[nul] == 0);
        let (n, text) = pairs.fold((0, 0), |(n, t), p| {
            let b = p[1 - nul];
            (
                n + 1,
                t + usize::from(b == b'\t' || b == b'\n' || b == b'\r' || (0x20..0x7f).contains(&b)),
            )
        });
        text * 10 >= n * 9
    };
    // Mostly NULs in one position, hardly any in the other; and at least
    // [`WIDE_MIN_NULS`] of them: one NUL in `ab\0cd` makes no text UTF-16.
    if even.max(odd) < WIDE_MIN_NULS {
        None
    } else if odd * 5 >= pairs * 2 && even * 10 <= odd && ascii(1) {
        wide("UTF-16 (little-endian)", 2, true, None)
    } else if even * 5 >= pairs * 2 && odd * 10 <= even && ascii(0) {
        wide("UTF-16 (big-endian)", 2, false, None)
    } else {
        None
    }
}

/// The fewest NUL bytes [`wide_encoding`] reads as UTF-16 text without a
/// byte-order mark (four ASCII characters).
const WIDE_MIN_NULS: usize = 4;

/// Bytes of a file's start that [`wide_encoding`] looks at without a
/// byte-order mark, and that [`wide_excerpt`] decodes (4 KiB).
const WIDE_HEAD: usize = 4096;

/// What the diagnostic of a file in the `wide` encoding shows: the file's
/// first line holding more than white space, decoded from the first
/// [`WIDE_HEAD`] bytes after the byte-order mark (a unit that is no character
/// becomes U+FFFD), preceded by as many empty lines as come before it, so that
/// its line number is the real one; and the span of that line in this text,
/// from column 1 (a column counted from the line's start is the same in any
/// encoding). A line cut at [`WIDE_HEAD`] ends with `…`. Empty text and an
/// empty span when the head holds nothing but white space.
fn wide_excerpt(bytes: &[u8], wide: Wide) -> (String, Span) {
    let from = if wide.bom.is_some() { wide.unit } else { 0 };
    let end = bytes.len().min(from + WIDE_HEAD);
    let head = &bytes[from..from + (end - from) / wide.unit * wide.unit];
    let byte = |n: u32, &b: &u8| n << 8 | u32::from(b);
    let units = head.chunks_exact(wide.unit).map(|u| {
        if wide.little {
            u.iter().rev().fold(0, byte)
        } else {
            u.iter().fold(0, byte)
        }
    });
    let text: String = if wide.unit == 2 {
        char::decode_utf16(units.map(|u| u as u16))
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    } else {
        units.map(|u| char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER)).collect()
    };
    let cut = head.len() < bytes.len() - from;
    let lines: Vec<&str> = text.split('\n').collect();
    let Some(k) = lines.iter().position(|l| !l.trim().is_empty()) else {
        return (String::new(), Span::new(0, 0));
    };
    let mut shown = "\n".repeat(k);
    shown.push_str(lines[k].trim_end());
    if cut && k + 1 == lines.len() {
        shown.push('…');
    }
    let span = Span::new(k, shown.len());
    (shown, span)
}
