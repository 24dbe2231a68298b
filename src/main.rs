//! `loopsim`: see LANGUAGE.md and the README.
fn main() -> std::process::ExitCode {
    loopsim::cli::main()
}
