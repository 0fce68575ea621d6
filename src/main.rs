//! The `ai-rulez` binary: everything lives in the library.

fn main() -> std::process::ExitCode {
    ai_rulez::run()
}
