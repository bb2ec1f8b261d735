//! Decimal parsing of SWF fields straight from the line's bytes: no floats, no allocation.
//!
//! Every field is a non-negative decimal (`123`, `4.5`, `.5`, `6.`) or the unknown marker
//! `-1` (also written `-1.0`, `-1.00`). Any other negative value is an error, and so are
//! signs, exponents and any character that is not a digit or a single `.`.
//!
//! Rounding: a quantity with a fractional part is rounded half-up at the resolution it is
//! kept at (microseconds for times, kilobytes for memory), with integer arithmetic only, so
//! the result never depends on the platform. Counts and identifiers must be whole numbers
//! (`56` or `56.0`, not `56.5`).

use super::FieldProblem;

/// A non-negative decimal as written: its integer part and its fractional digits.
struct Decimal<'a> {
    int: u64,
    frac: &'a [u8],
}

/// Parses a field: `Ok(None)` for the unknown marker -1, the decimal otherwise.
fn decimal(text: &[u8]) -> Result<Option<Decimal<'_>>, FieldProblem> {
    if let Some(rest) = text.strip_prefix(b"-") {
        if rest == b"1" {
            // The marker as most logs write it.
            return Ok(None);
        }
        return match unsigned(rest) {
            Ok(d) if d.int == 1 && d.frac.iter().all(|&b| b == b'0') => Ok(None),
            Ok(_) | Err(FieldProblem::TooLarge) => Err(FieldProblem::Negative),
            Err(e) => Err(e),
        };
    }
    unsigned(text).map(Some)
}

/// The run of ASCII digits in `text` from `i`: its value (wrapping past `u64`; the callers
/// bound the run's length) and the index after it. One digit loop for this reader and
/// `fast`'s.
#[inline]
pub(super) fn digits(text: &[u8], mut i: usize) -> (u64, usize) {
    let mut v: u64 = 0;
    while let Some(&b) = text.get(i) {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        v = v.wrapping_mul(10).wrapping_add(u64::from(digit));
        i += 1;
    }
    (v, i)
}

/// Parses `digits[.digits]` (at least one digit on either side of the dot), in one pass.
fn unsigned(text: &[u8]) -> Result<Decimal<'_>, FieldProblem> {
    let (mut int, i) = digits(text, 0);
    let frac = match text.get(i) {
        None => &[][..],
        Some(b'.') => &text[i + 1..],
        Some(_) => return Err(FieldProblem::NotANumber),
    };
    if (i == 0 && frac.is_empty()) || !frac.iter().all(u8::is_ascii_digit) {
        return Err(FieldProblem::NotANumber);
    }
    // Nineteen digits always fit; more may not (leading zeros aside): counted again,
    // checked.
    if i > 19 {
        int = text[..i]
            .iter()
            .try_fold(0u64, |v, &b| {
                v.checked_mul(10)?.checked_add(u64::from(b - b'0'))
            })
            .ok_or(FieldProblem::TooLarge)?;
    }
    Ok(Decimal { int, frac })
}

/// Seconds (fractional allowed) to integer microseconds, rounded half-up past 6 digits.
pub(super) fn micros(text: &[u8]) -> Result<Option<u64>, FieldProblem> {
    let Some(d) = decimal(text)? else {
        return Ok(None);
    };
    if d.frac.is_empty() {
        // Whole seconds, as most logs write them.
        return d
            .int
            .checked_mul(1_000_000)
            .map(Some)
            .ok_or(FieldProblem::TooLarge);
    }
    let mut frac_us: u64 = 0;
    for i in 0..6 {
        frac_us = frac_us * 10 + d.frac.get(i).map_or(0, |&b| u64::from(b - b'0'));
    }
    // Half-up: the 7th digit alone decides, since later digits can only add to it.
    let round_up = u64::from(d.frac.get(6).is_some_and(|&b| b >= b'5'));
    d.int
        .checked_mul(1_000_000)
        .and_then(|v| v.checked_add(frac_us + round_up))
        .map(Some)
        .ok_or(FieldProblem::TooLarge)
}

/// A quantity kept in whole units (kilobytes of memory), rounded half-up.
pub(super) fn rounded(text: &[u8]) -> Result<Option<u64>, FieldProblem> {
    let Some(d) = decimal(text)? else {
        return Ok(None);
    };
    let round_up = u64::from(d.frac.first().is_some_and(|&b| b >= b'5'));
    d.int
        .checked_add(round_up)
        .map(Some)
        .ok_or(FieldProblem::TooLarge)
}

/// A count or identifier: a whole number that fits `T` (`8.0` is accepted, `8.5` is not).
pub(super) fn whole<T: TryFrom<u64>>(text: &[u8]) -> Result<Option<T>, FieldProblem> {
    let Some(d) = decimal(text)? else {
        return Ok(None);
    };
    if d.frac.iter().any(|&b| b != b'0') {
        return Err(FieldProblem::NotInteger);
    }
    T::try_from(d.int)
        .map(Some)
        .map_err(|_| FieldProblem::TooLarge)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(s: &str) -> Result<Option<u64>, FieldProblem> {
        micros(s.as_bytes())
    }

    #[test]
    fn seconds_convert_exactly_to_microseconds() {
        assert_eq!(us("0"), Ok(Some(0)));
        assert_eq!(us("1.5"), Ok(Some(1_500_000)));
        assert_eq!(us("97225"), Ok(Some(97_225_000_000)));
        assert_eq!(us("358.00"), Ok(Some(358_000_000)));
        assert_eq!(us("0.000001"), Ok(Some(1)));
        assert_eq!(us(".25"), Ok(Some(250_000)));
        assert_eq!(us("7."), Ok(Some(7_000_000)));
        // Through f64, `(s * 1e6) as u64` gives 134700830267 here (one microsecond short).
        assert_eq!(us("134700.830268"), Ok(Some(134_700_830_268)));
    }

    #[test]
    fn sub_microsecond_digits_round_half_up() {
        assert_eq!(us("0.0000005"), Ok(Some(1)));
        assert_eq!(us("0.00000049999"), Ok(Some(0)));
        assert_eq!(us("1.9999995"), Ok(Some(2_000_000)));
        assert_eq!(us("2.5000000000"), Ok(Some(2_500_000)));
    }

    #[test]
    fn minus_one_is_unknown_and_other_negatives_are_errors() {
        assert_eq!(us("-1"), Ok(None));
        assert_eq!(us("-1.00"), Ok(None));
        assert_eq!(whole::<u32>(b"-1"), Ok(None));
        assert_eq!(us("-2"), Err(FieldProblem::Negative));
        assert_eq!(us("-1.5"), Err(FieldProblem::Negative));
        assert_eq!(us("-0"), Err(FieldProblem::Negative));
        assert_eq!(us("-99999999999999999999999"), Err(FieldProblem::Negative));
        assert_eq!(whole::<u32>(b"-3"), Err(FieldProblem::Negative));
    }

    #[test]
    fn garbage_is_not_a_number() {
        for s in [
            "", "-", ".", "abc", "1a", "1.2.3", "+1", "1e3", "--1", "-x", "1,5",
        ] {
            assert_eq!(us(s), Err(FieldProblem::NotANumber), "{s:?}");
        }
    }

    #[test]
    fn counts_are_whole_and_fit() {
        assert_eq!(whole::<u32>(b"56"), Ok(Some(56)));
        assert_eq!(whole::<u32>(b"56.00"), Ok(Some(56)));
        assert_eq!(whole::<u32>(b"56.5"), Err(FieldProblem::NotInteger));
        assert_eq!(whole::<u32>(b"4294967295"), Ok(Some(u32::MAX)));
        assert_eq!(whole::<u32>(b"4294967296"), Err(FieldProblem::TooLarge));
        assert_eq!(
            whole::<u64>(b"18446744073709551616"),
            Err(FieldProblem::TooLarge)
        );
        assert_eq!(us("18446744073709551615"), Err(FieldProblem::TooLarge));
    }

    #[test]
    fn memory_rounds_half_up_to_kilobytes() {
        assert_eq!(rounded(b"2560"), Ok(Some(2560)));
        assert_eq!(rounded(b"2560.5"), Ok(Some(2561)));
        assert_eq!(rounded(b"2560.49"), Ok(Some(2560)));
        assert_eq!(rounded(b"-1"), Ok(None));
    }
}
