//! `--json`: the machine-readable summary a command prints on stdout instead of its text
//! table. Commands whose results folder holds a `summary.json` print it as written; the
//! others print their summary CSV as a list of objects (one per row, keyed by the header,
//! numbers as numbers), so a script reads every command's summary the same way.

use std::path::Path;

use anyhow::Context;
use serde_json::{Map, Value};

/// The cells of one CSV line (RFC 4180 quotes: `"a,b"` is one cell, `""` a quote in it).
fn cells(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// A CSV cell as JSON: a finite number as a number, empty as null, anything else as text.
fn cell_value(s: &str) -> Value {
    if s.is_empty() {
        return Value::Null;
    }
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() => serde_json::Number::from_f64(x).map_or(Value::Null, |n| {
            // Whole numbers stay integers (`12`, not `12.0`).
            match s.parse::<i64>() {
                Ok(i) => Value::from(i),
                Err(_) => Value::Number(n),
            }
        }),
        _ => Value::String(s.to_string()),
    }
}

/// A CSV text (header first) as a list of objects.
pub(crate) fn csv_rows(text: &str) -> Value {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let Some(header) = lines.next() else {
        return Value::Array(Vec::new());
    };
    let keys = cells(header);
    Value::Array(
        lines
            .map(|l| {
                let mut m = Map::new();
                for (k, v) in keys.iter().zip(cells(l)) {
                    m.insert(k.clone(), cell_value(&v));
                }
                Value::Object(m)
            })
            .collect(),
    )
}

/// The summary of the results folder `dir`: `summary.json` as written, else the first of
/// `csvs` there as a list of objects, under `{"reports": dir, "summary": ...}`.
pub(crate) fn dir_summary(dir: &Path, csvs: &[&str]) -> anyhow::Result<String> {
    let json = dir.join("summary.json");
    let summary = if json.is_file() {
        let text =
            crate::bounded::read_to_string(&json, crate::bounded::TEXT_FILE_BYTES, "summary")
                .with_context(|| format!("{}: cannot read", json.display()))?;
        serde_json::from_str::<Value>(&text)
            .with_context(|| format!("{}: not valid JSON", json.display()))?
    } else {
        let path = csvs
            .iter()
            .map(|c| dir.join(c))
            .find(|p| p.is_file())
            .with_context(|| format!("{}: holds no summary file", dir.display()))?;
        let text = crate::bounded::read_to_string(&path, crate::bounded::SHARD_BYTES, "report")
            .with_context(|| format!("{}: cannot read", path.display()))?;
        csv_rows(&text)
    };
    let v = serde_json::json!({
        "reports": dir.display().to_string(),
        "summary": summary,
    });
    Ok(serde_json::to_string_pretty(&v)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_csv_rows_keep_quotes_numbers_and_text() {
        let v = csv_rows("name,n,mean,note\n\"a,b\",3,0.5,\n\"say \"\"hi\"\"\",-2,1e3,x\n");
        assert_eq!(
            v,
            serde_json::json!([
                {"name": "a,b", "n": 3, "mean": 0.5, "note": null},
                {"name": "say \"hi\"", "n": -2, "mean": 1000.0, "note": "x"},
            ])
        );
        assert_eq!(csv_rows(""), serde_json::json!([]));
    }
}
