//! `loopsim`: see docs/ and the README.
fn main() -> std::process::ExitCode {
    loopsim::cli::main()
}
