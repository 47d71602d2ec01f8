use super::*;

const XML: &str = r#"<?xml version="1.0" ?>
<coverage version="7.17.5" line-rate="0.5">
	<sources>
		<source>/ci/work/shop</source>
	</sources>
	<packages>
		<package name="shop">
			<classes>
				<class name="pricing.py" filename="shop/pricing.py">
					<methods/>
					<lines>
						<line number="1" hits="1"/>
						<line number="13" hits="1" branch="true" condition-coverage="50% (1/2)" missing-branches="14"/>
						<line number="14" hits="0"/>
						<line number="20" hits="2.0"/>
					</lines>
				</class>
				<class name="a&amp;b.py" filename="shop/a&amp;b.py"><lines><line number="1" hits="0"/></lines></class>
			</classes>
		</package>
	</packages>
</coverage>
"#;

#[test]
fn cobertura_names_each_file_under_its_source_and_as_written() {
    let m = cobertura(XML.as_bytes()).expect("read");
    let names: Vec<&str> = m.files.keys().map(String::as_str).collect();
    assert_eq!(names, ["shop/a&b.py", "shop/pricing.py"]);
    assert_eq!(m.sources, ["/ci/work/shop"]);
    let all: Vec<String> = m.names("shop/pricing.py").collect();
    assert_eq!(all, ["shop/pricing.py", "/ci/work/shop/shop/pricing.py"]);
    let lines = &m.files["shop/pricing.py"];
    assert_eq!(
        lines.statements.iter().copied().collect::<Vec<_>>(),
        [1, 13, 14, 20]
    );
    assert_eq!(
        lines.executed.iter().copied().collect::<Vec<_>>(),
        [1, 13, 20]
    );
}

#[test]
fn json_reports_statements_are_executed_and_missing_lines() {
    let text = br#"{"meta": {}, "files": {"shop/pricing.py": {"executed_lines": [1, 3], "missing_lines": [5], "excluded_lines": [9], "summary": {}}}}"#;
    let m = json(text).expect("read");
    let lines = &m.files["shop/pricing.py"];
    assert_eq!(
        lines.statements.iter().copied().collect::<Vec<_>>(),
        [1, 3, 5]
    );
    assert_eq!(lines.executed.iter().copied().collect::<Vec<_>>(), [1, 3]);
}

#[test]
fn reports_of_shards_add_up() {
    let mut m =
        json(br#"{"files": {"a.py": {"executed_lines": [1], "missing_lines": [2]}}}"#).expect("a");
    m.add(
        json(br#"{"files": {"a.py": {"executed_lines": [2], "missing_lines": [1]}}}"#).expect("b"),
    );
    assert_eq!(m.files["a.py"].executed.len(), 2);
}

#[test]
fn what_is_no_coverage_data_is_said() {
    assert_eq!(sniff(b"SQLite format 3\0rest"), Ok(DataKind::DataFile));
    assert_eq!(sniff(b"  <?xml"), Ok(DataKind::Cobertura));
    assert_eq!(sniff(b"\xef\xbb\xbf<?xml"), Ok(DataKind::Cobertura));
    assert_eq!(sniff(b"\n{"), Ok(DataKind::Json));
    assert!(sniff(b"hello").is_err() && sniff(b"").is_err());
    let unclosed = cobertura(b"<coverage><sources>").unwrap_err();
    assert!(
        unclosed.contains("ends before its elements are closed"),
        "{unclosed}"
    );
    let crossed = cobertura(b"<coverage></sources>").unwrap_err();
    assert!(crossed.contains("not well-formed XML"), "{crossed}");
    assert!(
        cobertura(b"<testsuites/>")
            .unwrap_err()
            .contains("no <coverage> element")
    );
    assert!(
        json(b"{\"files\": 3}")
            .unwrap_err()
            .contains("not coverage.py's JSON report")
    );
    assert!(json(b"[1]").is_err());
}
