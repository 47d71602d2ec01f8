use super::*;

/// Lines, and the ranges they make.
type RangesCase = (&'static [u32], &'static [(u32, u32)]);

#[test]
fn ranges_compact_consecutive_lines() {
    let cases: [RangesCase; 6] = [
        (&[], &[]),
        (&[7], &[(7, 7)]),
        (&[1, 2, 3], &[(1, 3)]),
        (
            &[2, 5, 6, 9, 10, 11, 20],
            &[(2, 2), (5, 6), (9, 11), (20, 20)],
        ),
        (&[3, 3, 4, 4], &[(3, 4)]),
        (&[u32::MAX - 1, u32::MAX], &[(u32::MAX - 1, u32::MAX)]),
    ];
    for (lines, want) in cases {
        assert_eq!(ranges(lines), want, "{lines:?}");
    }
    // Out of order: more ranges, never a panic.
    assert_eq!(ranges(&[5, 1, 2]), [(5, 5), (1, 2)]);
}
