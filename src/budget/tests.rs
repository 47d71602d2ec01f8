use super::*;

#[test]
fn counts_tokens_as_o200k_does() {
    // o200k splits digits and operators from words.
    assert_eq!(count_tokens(""), 0);
    assert_eq!(count_tokens("hello world"), 2);
    assert_eq!(count_tokens("assert 3 == 4"), 6);
}

/// Every `n` and every threshold: the largest fitting count and the
/// rendering made for it, from either end of the range.
#[test]
fn the_largest_fitting_count_comes_with_its_rendering() {
    for n in 0..40 {
        for fit in 0..=n + 1 {
            let mut tried = Vec::new();
            let found = largest_fitting(n, |k| {
                tried.push(k);
                (k <= fit).then(|| format!("{k} items"))
            });
            let want = fit.min(n);
            match found {
                Some((k, text)) => {
                    assert_eq!((k, text), (want, format!("{want} items")));
                }
                None => assert_eq!(want, 0, "n {n}, fit {fit}"),
            }
            assert!(tried.iter().all(|&k| (1..=n).contains(&k)));
            // Never a rendering more than twice the size that fits.
            assert!(tried.iter().all(|&k| k <= 2 * want + 1), "{tried:?}");
            assert!(tried.len() <= 2 * (usize::BITS - n.leading_zeros()) as usize + 1);
        }
    }
}

/// The ladder: the first rung that fits wins; a family gives its
/// largest fitting plan; a family from 0 is passed over when even 0
/// does not fit; nothing fitting gives `None`.
#[test]
fn the_first_fitting_rung_wins() {
    let fits = |limit: usize| move |p: usize| (p <= limit).then_some(p);
    let ladder = || {
        vec![
            Rung::One(100),
            Rung::most(1, 9, |k| 50 + k),
            Rung::most(0, 20, |k| 10 + k),
            Rung::One(3),
        ]
    };
    assert_eq!(first_fitting(ladder(), fits(200)), Some(100));
    assert_eq!(first_fitting(ladder(), fits(55)), Some(55));
    assert_eq!(first_fitting(ladder(), fits(50)), Some(30));
    assert_eq!(first_fitting(ladder(), fits(12)), Some(12));
    assert_eq!(first_fitting(ladder(), fits(9)), Some(3));
    assert_eq!(first_fitting(ladder(), fits(2)), None);
    let from_zero = || vec![Rung::most(0, 5, |k| k * 10)];
    assert_eq!(first_fitting(from_zero(), fits(5)), Some(0));
}

/// A part of a budget holds its own limits, and names the request's.
#[test]
fn a_part_of_a_budget_names_the_whole() {
    let whole = Budget::tokens(8_000);
    let quarter = whole.part(1, 4);
    assert_eq!(quarter.tokens, Some(2_000));
    let rest = quarter.beside("hello world", 10);
    assert_eq!(rest.tokens, Some(1_988));
    for b in [quarter, rest] {
        assert_eq!(b.describe(), "8,000 tokens");
    }
    assert_eq!(Budget::tokens(3).beside("a b c d e", 0).tokens, Some(1));
    let long = "word ".repeat(9_000);
    assert_eq!(whole.excess(&long), count_tokens(&long) - 8_000);
    assert_eq!(whole.excess("fits"), 0);
}

#[test]
fn every_set_limit_must_hold() {
    let text = "word ".repeat(100);
    assert!(Budget::NONE.fits(&text));
    assert!(Budget::chars(500).fits(&text));
    assert!(!Budget::chars(499).fits(&text));
    let tokens = count_tokens(&text);
    assert!(Budget::tokens(tokens).fits(&text));
    assert!(!Budget::tokens(tokens - 1).fits(&text));
    let both = Budget {
        tokens: Some(tokens),
        chars: Some(10),
        within: None,
    };
    assert!(!both.fits(&text));
    assert_eq!(
        both.describe(),
        format!("{tokens} tokens and 10 characters")
    );
}

/// Plans that fit when their number is at most `limit`.
struct UpTo {
    limit: usize,
}

impl Plans for UpTo {
    type Plan = usize;
    type Answer = String;
    fn ladder(&self) -> Vec<Rung<'_, usize>> {
        vec![Rung::One(100), Rung::most(1, 9, |k| 50 + k).map(|p| p - 40)]
    }
    fn attempt(&self, plan: usize) -> Option<String> {
        (plan <= self.limit).then(|| format!("plan {plan}"))
    }
    fn last_resort(&self) -> String {
        "last".to_string()
    }
}

/// An offer is whole, or its plans are chosen by the one loop: the first
/// rung that fits, a mapped family's largest member that fits, else the
/// last resort; a mapped offer turns what was chosen.
#[test]
fn an_offer_is_fitted_by_the_one_loop() {
    assert_eq!(fit(Offer::Whole("whole".to_string())), "whole");
    assert_eq!(fit(Offer::plans(UpTo { limit: 200 })), "plan 100");
    assert_eq!(fit(Offer::plans(UpTo { limit: 15 })), "plan 15");
    assert_eq!(fit(Offer::plans(UpTo { limit: 10 })), "last");
    let mapped = Offer::plans(UpTo { limit: 13 }).map(|s| s.len());
    assert_eq!(fit(mapped), "plan 13".len());
}
