//! Reading a `.loop` file: bytes → text → AST → checks.

use crate::check;
use crate::problem::{FileProblems, Problem};
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
}

/// Why a file could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// It could not be read.
    Io { name: String, error: std::io::Error },
    /// It is not a valid `.loop` file.
    Invalid(FileProblems),
}

/// Reads, parses and checks the file at `path`.
///
/// # Errors
/// [`LoadError::Io`] if unreadable; [`LoadError::Invalid`] with every problem found.
pub fn load(path: &Path) -> Result<Loaded, LoadError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|error| LoadError::Io { name: name.clone(), error })?;
    load_bytes(&name, &bytes)
}

/// Parses and checks `bytes` as the file `name`.
///
/// # Errors
/// [`LoadError::Invalid`] with every problem found.
pub fn load_bytes(name: &str, bytes: &[u8]) -> Result<Loaded, LoadError> {
    if bytes.len() >= u32::MAX as usize {
        let p = Problem::error("loop::too-large", Span::new(0, 0), "the file is 4 GiB or more", "too large")
            .help("a .loop file describes a program: keep it well under 4 GiB (spans are 32-bit byte offsets)");
        return Err(LoadError::Invalid(FileProblems::new(name, "", vec![p])));
    }
    // A binary file: say so without showing its bytes.
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
        let p = Problem::error(
            "loop::encoding",
            Span::new(0, 0),
            format!("the file contains a NUL byte (at byte {at}): it is not text"),
            "binary data",
        )
        .help("a .loop file is UTF-8 text; is this a binary file?");
        return Err(LoadError::Invalid(FileProblems::new(name, "", vec![p])));
    }
    let src = match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(e) => {
            let lossy = String::from_utf8_lossy(bytes).into_owned();
            let at = String::from_utf8_lossy(&bytes[..e.valid_up_to()]).len();
            let end = lossy[at..].chars().next().map_or(at, |c| at + c.len_utf8());
            let p = Problem::error(
                "loop::encoding",
                Span::new(at, end),
                "the file is not valid UTF-8",
                "invalid byte here",
            )
            .help("save the file as UTF-8");
            return Err(LoadError::Invalid(FileProblems::new(name, &lossy, vec![p])));
        }
    };
    if let Some(at) = src.find('\0') {
        let p = Problem::error("loop::encoding", Span::new(at, at + 1), "the file contains a NUL byte", "NUL byte")
            .help("a .loop file is text; is this a binary file?");
        return Err(LoadError::Invalid(FileProblems::new(name, &src, vec![p])));
    }
    let file = syntax::parse(&src).map_err(|problems| LoadError::Invalid(FileProblems::new(name, &src, problems)))?;
    let problems = check::check(&file);
    if problems.iter().any(|p| !p.warning) {
        return Err(LoadError::Invalid(FileProblems::new(name, &src, problems)));
    }
    Ok(Loaded {
        name: name.to_string(),
        src,
        file,
        warnings: problems,
    })
}
