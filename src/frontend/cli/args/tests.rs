use super::*;

fn grace_of(args: &[&str]) -> Result<Duration, clap::Error> {
    let cli = Cli::try_parse_from(std::iter::once("pytest-mcp").chain(args.iter().copied()))?;
    Ok(match cli.command {
        Command::Run(a) => a.project.pytest.kill_grace,
        Command::Discover(a) => a.project.pytest.kill_grace,
        Command::Serve(a) => a.kill_grace,
        Command::Plan(a) => a.pytest.kill_grace,
        Command::Report(_) => unreachable!("no --kill-grace on report"),
        Command::SelectShard(_) => unreachable!("no --kill-grace on select-shard"),
    })
}

#[test]
fn kill_grace_defaults_to_the_process_default_and_takes_fractions() {
    for sub in [
        &["run"][..],
        &["discover"],
        &["serve"],
        &["plan", "--shards", "2"],
    ] {
        let with = |more: &[&'static str]| [sub, more].concat();
        assert_eq!(
            grace_of(sub).unwrap(),
            crate::runner::process::DEFAULT_GRACE,
            "{sub:?}"
        );
        assert_eq!(
            grace_of(&with(&["--kill-grace", "0.2"])).unwrap(),
            Duration::from_millis(200),
            "{sub:?}"
        );
        assert_eq!(
            grace_of(&with(&["--kill-grace", "0"])).unwrap(),
            Duration::ZERO
        );
    }
}

#[test]
fn kill_grace_out_of_range_is_refused() {
    for bad in ["-1", "61", "nan", "inf", "2s", ""] {
        assert!(grace_of(&["run", "--kill-grace", bad]).is_err(), "{bad}");
    }
}
