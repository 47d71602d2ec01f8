//! The `pytest-mcp` binary: parse the command line, run, exit.

fn main() -> std::process::ExitCode {
    pytest_mcp::frontend::cli::main()
}
