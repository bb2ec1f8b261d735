//! Unit tests of the shard slices, the coverage check and the file format's primitives.

use super::*;
use proptest::prelude::*;

proptest! {
    /// The slices of one N are disjoint, in order, cover every item, and differ in size by
    /// at most one.
    #[test]
    fn shard_slices_partition_the_items(total in 0u64..5_000, n in 1u32..200) {
        let mut next = 0;
        let mut sizes = Vec::new();
        for k in 1..=n {
            let r = Slice { k, n }.range(total);
            prop_assert_eq!(r.start, next);
            next = r.end;
            sizes.push(r.end - r.start);
        }
        prop_assert_eq!(next, total);
        let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        prop_assert!(hi - lo <= 1);
        for x in (0..total).step_by(97) {
            let s = Slice::holding(x, total, n);
            prop_assert!(s.range(total).contains(&x));
        }
    }

    /// Escaping round-trips any text, and the escaped form has no tab or line break.
    #[test]
    fn shard_escape_round_trips(s in ".*") {
        let e = escape(&s);
        prop_assert!(!e.contains(['\t', '\n', '\r']));
        prop_assert_eq!(unescape(&e), s);
    }
}

#[test]
fn shard_slice_parses_k_of_n() {
    assert_eq!("2/8".parse::<Slice>(), Ok(Slice { k: 2, n: 8 }));
    for bad in ["0/4", "5/4", "1/0", "2", "a/4", "2/b", ""] {
        assert!(bad.parse::<Slice>().is_err(), "{bad}");
    }
    assert_eq!(Slice { k: 3, n: 4 }.file_name(), "shard-3-of-4.shard");
}

#[test]
fn shard_coverage_names_missing_and_duplicated_items() {
    let c = Coverage::of(&[0..3, 5..8, 2..4], 10);
    assert_eq!(c.missing, vec![4, 8, 9]);
    assert_eq!(c.duplicated, vec![(2, 0, 2)]);
    assert_eq!(ranges_text(&c.missing), "4, 8-9");
    let c = Coverage::of(&[0..5, 5..10], 10);
    assert!(c.missing.is_empty() && c.duplicated.is_empty());
}

#[test]
fn shard_text_needs_its_end_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.shard");
    let mut w = Writer::new("experiment");
    w.header("items", "0..1");
    w.row("row", &["0".to_string()]);
    w.finish(&p).unwrap();
    let t = Text::read(&p).unwrap();
    assert_eq!(t.items().unwrap(), 0..1);
    assert_eq!(t.rows.len(), 1);
    // Cut short (a job killed while writing): the end line is gone.
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.replace("end\t1\n", "")).unwrap();
    let e = Text::read(&p).unwrap_err().to_string();
    assert!(e.contains("no end line"), "{e}");
    std::fs::write(&p, "hello\n").unwrap();
    let e = Text::read(&p).unwrap_err().to_string();
    assert!(e.contains("x.shard:1: not a kairos shard file"), "{e}");
}
