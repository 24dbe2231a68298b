//! `loopsim`: see docs/ and the README.
fn main() -> std::process::ExitCode {
    // A closed pipe (`loopsim test | head`) ends the process quietly, as for
    // any Unix filter, instead of a panic in `println!`. loopsim writes to no
    // other pipe (`verify` gives `node` no stdin), so nothing else changes.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of one signal before any
    // thread starts; no handler of ours is replaced.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    loopsim::cli::main()
}
