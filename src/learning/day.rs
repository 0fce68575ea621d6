//! Calendar days for `created` dates and usage ages. Today is read from the clock, or from
//! `SOURCE_DATE_EPOCH` (seconds since 1970, the reproducible-builds convention) when it is set,
//! so tests and reproducible runs see a fixed day. Days are counted since 1970-01-01 (UTC).

/// Today as days since 1970-01-01 (UTC): from `SOURCE_DATE_EPOCH` when it holds an integer,
/// else from the system clock (0 when the clock is before 1970).
#[must_use]
pub(crate) fn today() -> i64 {
    let seconds = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|text| text.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| {
                    i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
                })
        });
    seconds.div_euclid(86_400)
}

/// The day `days` after 1970-01-01 written `YYYY-MM-DD` (proleptic Gregorian calendar).
#[must_use]
pub(crate) fn format(days: i64) -> String {
    // Days are shifted to an era starting on 0000-03-01, so the leap day ends each year.
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` date; `None` when `text` is not such a date.
#[must_use]
pub(crate) fn parse(text: &str) -> Option<i64> {
    if !crate::content::is_iso_date(text) {
        return None;
    }
    let number = |range: std::ops::Range<usize>| text[range].parse::<i64>().ok();
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let month_index = if month > 2 { month - 3 } else { month + 9 };
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    Some(era * 146_097 + day_of_era - 719_468)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_and_dates_round_trip() {
        assert_eq!(format(0), "1970-01-01");
        assert_eq!(format(11_016), "2000-02-29");
        assert_eq!(format(20_454), "2026-01-01");
        for days in [-1, 0, 59, 365, 11_016, 20_454, 100_000] {
            assert_eq!(parse(&format(days)), Some(days), "{days}");
        }
        assert_eq!(parse("2025-02-29"), None);
    }
}
