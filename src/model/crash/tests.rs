use super::*;
use crate::model::{Location, Outcome};

fn failed(location: Option<(&str, u32)>, message: &str, traceback: &str) -> TestResult {
    let mut t = TestResult::new("t", Outcome::Failed);
    t.location = location.map(|(f, l)| Location::new(f, Some(l)));
    t.set_message(Some(message.to_string()));
    t.set_traceback(Some(traceback.to_string()));
    t
}

fn at(t: &TestResult) -> Option<(&str, Option<u32>)> {
    crash_line(t).map(|c| (c.file, c.line))
}

#[test]
fn pytest_the_deepest_project_frame() {
    let tb = "    def test_a():\n>       check(1)\n\ntests/test_a.py:5: \n\
              _ _ _\n\n    def check(x):\n>       raise ValueError(x)\nE       ValueError: 1\n\n\
              app/util.py:12: ValueError";
    let t = failed(Some(("tests/test_a.py", 4)), "ValueError: 1", tb);
    assert_eq!(at(&t), Some(("app/util.py", Some(12))));
    let lib = "tests/test_a.py:5: in test_a\n    f()\n/usr/lib/python3/x.py:9: KeyError";
    let t = failed(Some(("tests/test_a.py", 4)), "KeyError", lib);
    assert_eq!(at(&t), Some(("tests/test_a.py", Some(5))));
}

#[test]
fn other_frameworks_the_first_mention_of_the_tests_file() {
    let php = "Failed asserting that 7 is identical to 6.\n\n/srv/app/tests/StockTest.php:27";
    let t = failed(Some(("/srv/app/tests/StockTest.php", 22)), "Failed", php);
    assert_eq!(at(&t), Some(("/srv/app/tests/StockTest.php", Some(27))));
    let java = "java.lang.AssertionError: x\n\tat org.junit.Assert.fail(Assert.java:89)\n\
                \tat com.acme.FooTest.sums(FooTest.java:42)\n\tat com.acme.FooTest.x(FooTest.java:7)";
    let t = failed(Some(("src/test/java/com/acme/FooTest.java", 30)), "x", java);
    assert_eq!(
        at(&t),
        Some(("src/test/java/com/acme/FooTest.java", Some(42)))
    );
    let js = "Error: expect(received).toBe(expected)\n    at Object.<anonymous> (/w/src/sum.test.js:12:5)";
    let t = failed(Some(("src/sum.test.js", 3)), "x", js);
    assert_eq!(at(&t), Some(("src/sum.test.js", Some(12))));
    // Another file of the same name is not the test's.
    let other = "at x (/w/lib/sum.test.js:99:1)";
    let t = failed(Some(("src/sum.test.js", 3)), "x", other);
    assert_eq!(at(&t), Some(("src/sum.test.js", Some(3))));
}

#[test]
fn javascript_frames_name_a_path() {
    let mocha = "AssertionError: x\n    at Context.<anonymous> (test/router.spec.js:22:31)\n    at process.processImmediate (node:internal/timers:476:21)";
    let t = failed(None, "x", mocha);
    assert_eq!(at(&t), Some(("test/router.spec.js", Some(22))));
    let jasmine = "Expected 1 to be 2.\n    at <Jasmine>\n    at spec/cart.spec.js:27:31";
    assert_eq!(
        at(&failed(None, "x", jasmine)),
        Some(("spec/cart.spec.js", Some(27)))
    );
    let windows = "at Object.<anonymous> (D:\\w\\src\\a.test.ts:18:35)";
    assert_eq!(
        at(&failed(None, "x", windows)),
        Some(("D:\\w\\src\\a.test.ts", Some(18)))
    );
    // Frameworks' frames and bare file names are no place.
    let java =
        "\tat org.junit.Assert.fail(Assert.java:89)\n\tat com.acme.FooTest.x(FooTest.java:7)";
    assert_eq!(at(&failed(None, "x", java)), None);
    let deps = "at run (/w/node_modules/jest-circus/build/run.js:9:1)";
    assert_eq!(at(&failed(None, "x", deps)), None);
}

#[test]
fn nothing_about_files_is_no_place() {
    let t = failed(None, "boom", "boom\nat somewhere");
    assert_eq!(at(&t), None);
    assert!(line_in("FooTest.php:x", "FooTest.php").is_none());
}
