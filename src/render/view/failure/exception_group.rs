//! An ExceptionGroup's traceback, as Python prints it (pytest passes it on
//! as it is: `+ Exception Group Traceback`, `|`-framed lines, one block per
//! member) told as the other failures are: the group's frames in the
//! project and its failing line, then each member in one line with its
//! place, paths relative to the project as the test's own are.

use std::fmt::Write as _;

use crate::pytest_text::is_project_path;
use crate::text::one_line;

/// The first line of such a traceback.
const HEADER: &str = "+ Exception Group Traceback";

/// Members listed, at most; the rest are counted.
const MAX_MEMBERS: usize = 10;

/// Whether `tb` is an exception group's traceback.
pub(super) fn is_exception_group(tb: &str) -> bool {
    tb.trim_start().starts_with(HEADER)
}

/// One `File "path", line N, in f` line, its source line after it.
struct Frame {
    path: String,
    line: u32,
    source: Option<String>,
}

/// A member: its exception line and the frames that raised it.
#[derive(Default)]
struct Member {
    exception: Option<String>,
    frames: Vec<Frame>,
}

/// The group's own frames and its members, read from Python's
/// rendering of an ExceptionGroup's traceback.
fn members(tb: &str) -> (Member, Vec<Member>) {
    let mut group = Member::default();
    let mut members: Vec<Member> = Vec::new();
    let last_frame_of = |m: &mut Member, content: &str| {
        if let Some(f) = m.frames.last_mut()
            && f.source.is_none()
        {
            f.source = Some(content.trim().to_string());
            return true;
        }
        false
    };
    let mut after_file = false;
    for raw in tb.lines() {
        let trimmed = raw.trim_start();
        // `+-+---- 1 ----`, `+---- 2 ----`: a member begins; `+------`
        // closes the last.
        if trimmed.starts_with("+-") {
            if trimmed.contains(char::is_numeric) {
                members.push(Member::default());
            }
            after_file = false;
            continue;
        }
        let content = trimmed.trim_start_matches(['|', '+']).trim();
        let current = members.last_mut().unwrap_or(&mut group);
        if let Some(frame) = file_line(content) {
            current.frames.push(frame);
            after_file = true;
            continue;
        }
        if after_file && last_frame_of(current, content) {
            after_file = false;
            continue;
        }
        after_file = false;
        if content.is_empty()
            || content.starts_with("Traceback (most recent call last)")
            || content.starts_with(HEADER.trim_start_matches("+ "))
            || content.starts_with('^')
        {
            continue;
        }
        if current.exception.is_none() {
            current.exception = Some(content.to_string());
        }
    }
    (group, members)
}

/// The detail lines of an exception group's traceback `tb` of a test in
/// `test_file` (relative to the project): `at path:line` per frame of the
/// group in the project, `> source`, then `1: ValueError: bad value (at
/// app/x.py:5)` per member.
pub(super) fn detail(tb: &str, test_file: Option<&str>) -> Vec<String> {
    let (group, members) = members(tb);
    let root = test_file.and_then(|file| root_of(tb, file));
    let relative = |path: &str| -> String {
        match root.as_deref().and_then(|r| path.strip_prefix(r)) {
            Some(rest) => rest.to_string(),
            None => path.to_string(),
        }
    };
    let mut out = Vec::new();
    let in_project = |m: &Member| -> Vec<(String, u32, Option<String>)> {
        m.frames
            .iter()
            .map(|f| (relative(&f.path), f.line, f.source.clone()))
            .filter(|(path, ..)| is_project_path(path))
            .collect()
    };
    let frames_of = |out: &mut Vec<String>, frames: &[(String, u32, Option<String>)]| {
        for (path, line, _) in frames {
            out.push(format!("at {}:{line}", one_line(path)));
        }
        if let Some(source) = frames.last().and_then(|(.., s)| s.as_deref()) {
            out.push(format!("> {}", one_line(source)));
        }
    };
    // A group of one (asyncio's TaskGroup wraps the one exception a task
    // raised): that exception first, where it was raised, then the group
    // it came out of.
    if let [member] = members.as_slice()
        && member.exception.is_some()
    {
        // The test's own line first, as every failure's (its heading's).
        let group_frames = in_project(&group);
        if let Some((path, n, _)) = group_frames.first()
            && test_file == Some(path.as_str())
        {
            out.push(format!("at {}:{n}", one_line(path)));
        }
        frames_of(&mut out, &in_project(member));
        if let Some(exception) = &group.exception {
            let mut line = format!("in {}", one_line(exception));
            if let Some((path, n, _)) = group_frames.last() {
                let _ = write!(line, " (at {}:{n})", one_line(path));
            }
            out.push(line);
        }
        return out;
    }
    frames_of(&mut out, &in_project(&group));
    for (n, m) in members.iter().enumerate().take(MAX_MEMBERS) {
        let Some(exception) = &m.exception else {
            continue;
        };
        let mut line = format!("{}: {}", n + 1, one_line(exception));
        let place = m
            .frames
            .iter()
            .rev()
            .find(|f| is_project_path(&relative(&f.path)));
        if let Some(f) = place {
            let _ = write!(line, " (at {}:{})", one_line(&relative(&f.path)), f.line);
        }
        out.push(line);
    }
    if members.len() > MAX_MEMBERS {
        out.push(format!("… {} more members", members.len() - MAX_MEMBERS));
    }
    out
}

/// `File "path", line N, in f`.
fn file_line(content: &str) -> Option<Frame> {
    let rest = content.strip_prefix("File \"")?;
    let (path, rest) = rest.split_once("\", line ")?;
    let digits = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
    Some(Frame {
        path: path.to_string(),
        line: digits.parse().ok()?,
        source: None,
    })
}

/// The project's root as the traceback's paths spell it: the part before
/// the test's own file (`/tmp/p/` of `/tmp/p/tests/test_x.py`).
fn root_of(tb: &str, test_file: &str) -> Option<String> {
    let needle = format!("/{test_file}\"");
    let at = tb.find(&needle)?;
    let start = tb[..at].rfind('"')? + 1;
    Some(tb[start..=at].to_string())
}

#[cfg(test)]
mod tests;
