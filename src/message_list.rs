//! Lists of names inside one message: the first few named, the rest counted, so a message about
//! thousands of files or items stays one line a person can read.

/// The first `named` of `items`, in their order, then `and N more` when `items` holds more.
#[must_use]
pub(crate) fn named_then_counted(
    items: impl ExactSizeIterator<Item = String>,
    named: usize,
) -> Vec<String> {
    let total = items.len();
    let mut listed: Vec<String> = items.take(named).collect();
    if total > named {
        listed.push(format!("and {} more", total - named));
    }
    listed
}

#[cfg(test)]
mod tests {
    use super::named_then_counted;

    #[test]
    fn the_rest_past_the_named_ones_is_counted() {
        let names = || ["a", "b", "c"].into_iter().map(str::to_owned);
        assert_eq!(named_then_counted(names(), 2), ["a", "b", "and 1 more"]);
        assert_eq!(named_then_counted(names(), 3), ["a", "b", "c"]);
    }
}
