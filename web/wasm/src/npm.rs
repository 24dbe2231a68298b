//! The npm package's `loopsim ARGS…` (`npm/bin/loopsim.js`): the CLI itself,
//! with Node's file system and streams behind a [`JsHost`].

use loopsim::cli::{self, Host, Kind, Stream};
use loopsim::load;
use std::ffi::OsString;
use std::io;
use std::path::Path;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The npm package's host (`npm/bin/loopsim.js`): Node's file system and
    /// streams. Each method throws `{ code, message }` on failure.
    pub type JsHost;

    /// The bytes of a regular file or named pipe, at most `max` of them.
    #[wasm_bindgen(method, catch)]
    fn read(this: &JsHost, path: &str, max: f64) -> Result<Vec<u8>, JsValue>;

    /// "file", "dir", "symlink", "fifo", "char", "block", "socket" or "other".
    #[wasm_bindgen(method, catch)]
    fn kind(this: &JsHost, path: &str, follow: bool) -> Result<String, JsValue>;

    /// The entries' names of a folder.
    #[wasm_bindgen(method, catch)]
    fn names(this: &JsHost, path: &str) -> Result<Vec<String>, JsValue>;

    /// Writes to stdout (1) or stderr (2).
    #[wasm_bindgen(method)]
    fn write(this: &JsHost, fd: u32, bytes: &[u8]);

    /// Whether stdout (1) or stderr (2) is coloured under `--color auto`.
    #[wasm_bindgen(method, js_name = autoColor)]
    fn auto_color(this: &JsHost, fd: u32) -> bool;
}

/// A JavaScript error as an I/O error: its `code` (ENOENT …) picks the kind,
/// its `message` is the text (the host words it as Rust's standard library
/// does: "No such file or directory (os error 2)").
fn io_error(e: JsValue) -> io::Error {
    let get = |key: &str| get_string(&e, key).unwrap_or_default();
    let kind = match get("code").as_str() {
        "ENOENT" => io::ErrorKind::NotFound,
        "EACCES" | "EPERM" => io::ErrorKind::PermissionDenied,
        "EINVAL" => io::ErrorKind::InvalidInput,
        _ => io::ErrorKind::Other,
    };
    let message = get("message");
    io::Error::new(kind, if message.is_empty() { "unknown error".to_string() } else { message })
}

#[wasm_bindgen(
    inline_js = "export function get_string(o, k) { const v = o == null ? undefined : o[k]; return v == null ? undefined : String(v); }"
)]
extern "C" {
    fn get_string(o: &JsValue, key: &str) -> Option<String>;
}

fn kind_of(name: &str) -> Kind {
    match name {
        "file" => Kind::File,
        "dir" => Kind::Dir,
        "symlink" => Kind::Symlink,
        "fifo" => Kind::Pipe,
        "char" => Kind::Other("a character device"),
        "block" => Kind::Other("a block device"),
        "socket" => Kind::Other("a socket"),
        _ => Kind::Other("a special file"),
    }
}

impl Host for JsHost {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        // The rules of `loopsim::load::read`: regular files and pipes only, at most MAX_FILE_BYTES.
        let kind = Host::kind(self, path, true)?;
        if !matches!(kind, Kind::File | Kind::Pipe) {
            return Err(load::not_regular(kind.describe()));
        }
        let max = load::MAX_FILE_BYTES + 1;
        let bytes = JsHost::read(self, &path.to_string_lossy(), max as f64).map_err(io_error)?;
        if bytes.len() as u64 > load::MAX_FILE_BYTES {
            return Err(load::too_large());
        }
        Ok(bytes)
    }

    fn kind(&self, path: &Path, follow: bool) -> io::Result<Kind> {
        JsHost::kind(self, &path.to_string_lossy(), follow)
            .map(|k| kind_of(&k))
            .map_err(io_error)
    }

    fn names(&self, path: &Path) -> io::Result<Vec<OsString>> {
        JsHost::names(self, &path.to_string_lossy())
            .map(|names| names.into_iter().map(OsString::from).collect())
            .map_err(io_error)
    }

    fn write(&self, stream: Stream, bytes: &[u8]) {
        JsHost::write(self, if stream == Stream::Stdout { 1 } else { 2 }, bytes);
    }

    fn auto_color(&self, stream: Stream) -> bool {
        JsHost::auto_color(self, if stream == Stream::Stdout { 1 } else { 2 })
    }
}

/// The npm package's `loopsim ARGS…`: the CLI itself, reading files and
/// writing output through `host`. Returns the exit code.
#[wasm_bindgen]
pub fn cli(args: Vec<String>, host: JsHost) -> u8 {
    cli::run(std::iter::once("loopsim".to_string()).chain(args), &host)
}
