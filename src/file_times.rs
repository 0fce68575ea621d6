//! File times against the system clock, and the rule every machine-local record of file facts
//! keeps (the output stats, the `generate` memo, the MCP parse cache): a file's facts tell its
//! versions apart only once it has not changed for [`SETTLED`]. A file changed later could be
//! changed again within the same tick of a coarse file-system clock, keeping its size and
//! times (git's "racily clean" case), so its facts are not recorded.

/// How long before a moment a file must have last changed for its facts to be recorded there
/// (2 s: the coarsest common file-system clock, FAT's, ticks every 2 seconds).
pub(crate) const SETTLED: (i64, i64) = (2, 0);

/// Seconds and nanoseconds since the epoch by the system clock (the clock file times come
/// from on a local file system).
pub(crate) fn now() -> (i64, i64) {
    let elapsed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (
        i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX),
        i64::from(elapsed.subsec_nanos()),
    )
}

/// Whether a file last modified at `modified` and last changed (status) at `changed` had not
/// changed for [`SETTLED`] at `moment` (all as seconds, nanoseconds since the epoch), so its
/// facts may be recorded as of `moment`.
pub(crate) fn is_settled(modified: (i64, i64), changed: (i64, i64), moment: (i64, i64)) -> bool {
    let settled_before = (moment.0 - SETTLED.0, moment.1 - SETTLED.1);
    modified < settled_before && changed < settled_before
}
