//! Slurm's host lists (`n[1-3,7],gpu2`): expanded into node names and written back, so
//! that a node list read from Slurm and one given to `scontrol update` name the same nodes.

/// The node names of host list `list` (`n[1-3,7]` -> n1 n2 n3 n7), in order; an error names
/// what is wrong.
pub fn expand(list: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let list = list.trim();
    if list.is_empty() {
        return Ok(out);
    }
    // Split at top-level commas (not inside brackets).
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = list.as_bytes();
    let mut parts = Vec::new();
    for (k, &b) in bytes.iter().enumerate() {
        match b {
            b'[' => depth += 1,
            b']' => depth -= 1,
            b',' if depth == 0 => {
                parts.push(&list[start..k]);
                start = k + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return Err(format!("host list {list:?}: a ']' without '['"));
        }
    }
    if depth != 0 {
        return Err(format!("host list {list:?}: a '[' without ']'"));
    }
    parts.push(&list[start..]);
    for part in parts {
        let Some(open) = part.find('[') else {
            if part.is_empty() {
                return Err(format!("host list {list:?}: an empty name"));
            }
            out.push(part.to_string());
            continue;
        };
        let close = part
            .rfind(']')
            .ok_or_else(|| format!("host list {list:?}: a '[' without ']'"))?;
        let (prefix, suffix) = (&part[..open], &part[close + 1..]);
        for range in part[open + 1..close].split(',') {
            let (lo, hi) = range.split_once('-').unwrap_or((range, range));
            let width = lo.len();
            let bad = || format!("host list {list:?}: {range:?} is not a number or a range");
            let a: u64 = lo.parse().map_err(|_| bad())?;
            let b: u64 = hi.parse().map_err(|_| bad())?;
            if b < a || b - a > 1_000_000 {
                return Err(bad());
            }
            for n in a..=b {
                out.push(format!("{prefix}{n:0width$}{suffix}"));
            }
        }
    }
    Ok(out)
}

/// The names as one comma-separated list (what `scontrol update nodelist=` takes).
pub fn join(names: &[&str]) -> String {
    names.join(",")
}

/// Node names in their natural order: the text before the trailing number, then the
/// number (`n2` before `n10`).
pub fn natural_key(name: &str) -> (String, u64, String) {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (head, tail) = name.split_at(name.len() - digits);
    (
        head.to_string(),
        tail.parse().unwrap_or(0),
        name.to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_ranges_lists_and_padding() {
        assert_eq!(expand("n[1-3,7]").unwrap(), ["n1", "n2", "n3", "n7"]);
        assert_eq!(
            expand("a01,b[08-10]").unwrap(),
            ["a01", "b08", "b09", "b10"]
        );
        assert_eq!(expand("n[2,4]").unwrap(), ["n2", "n4"]);
        assert!(expand("").unwrap().is_empty());
        assert!(expand("n[1-").is_err());
        assert!(expand("n[3-1]").is_err());
        assert!(expand("n[x]").is_err());
    }

    #[test]
    fn natural_order_puts_n2_before_n10() {
        let mut v = vec!["n10", "n2", "n1"];
        v.sort_by_key(|n| natural_key(n));
        assert_eq!(v, ["n1", "n2", "n10"]);
    }
}
