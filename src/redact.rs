//! Credentials written into URLs (`https://user:token@host/…`) are never displayed: every message,
//! warning, finding and MCP reply that shows a URL from the config shows it through
//! [`mask_url_credentials`].

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// What stands where a credential was.
const MASK: &str = "****";

/// `scheme://` then the userinfo of an authority (`user` and an optional `:password`) up to `@`.
static URL_USERINFO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b([a-z][a-z0-9+.-]*://)([^\s/?#@:'"]*)(?::([^\s/?#@'"]*))?@"#)
        .expect("the userinfo pattern compiles")
});

/// The credential in one URL's userinfo, when there is one: the password of `user:password@`,
/// or the whole user part of an `http(s)://token@` URL (where a lone user is a token; an
/// `ssh://git@` user is a plain account name and is kept).
fn credential_of<'text>(
    scheme: &str,
    user: &'text str,
    password: Option<&'text str>,
) -> Option<&'text str> {
    match password {
        Some(password) if !password.is_empty() => Some(password),
        _ if !user.is_empty() && is_http(scheme) => Some(user),
        _ => None,
    }
}

/// Whether `scheme` (`https://`, `git+https://`) is HTTP or HTTPS.
fn is_http(scheme: &str) -> bool {
    let base = scheme
        .trim_end_matches("://")
        .rsplit('+')
        .next()
        .unwrap_or_default();
    base.eq_ignore_ascii_case("http") || base.eq_ignore_ascii_case("https")
}

/// `text` with the credential of every URL in it replaced by `****`:
/// `https://user:tok3n@git.example.com/r.git` becomes `https://user:****@git.example.com/r.git`
/// and `https://ghp_x@github.com/o/r` becomes `https://****@github.com/o/r`. Borrowed when the
/// text holds no credential.
#[must_use]
pub(crate) fn mask_url_credentials(text: &str) -> Cow<'_, str> {
    URL_USERINFO.replace_all(text, |captures: &regex::Captures<'_>| {
        let scheme = &captures[1];
        let user = &captures[2];
        let password = captures.get(3).map(|found| found.as_str());
        match (credential_of(scheme, user, password), password) {
            (Some(_), Some(password)) if !password.is_empty() => {
                format!("{scheme}{user}:{MASK}@")
            }
            (Some(_), _) => format!("{scheme}{MASK}@"),
            (None, _) => captures[0].to_owned(),
        }
    })
}

/// `text` (a message from a library that was given `url`) with every URL credential masked as
/// [`mask_url_credentials`] does, and also every bare occurrence of the credential written into
/// `url`, which a transport error may quote outside a URL.
#[must_use]
pub(crate) fn mask_credentials_of(text: &str, url: &str) -> String {
    let mut masked = mask_url_credentials(text).into_owned();
    for captures in URL_USERINFO.captures_iter(url) {
        let user = captures.get(2).map_or("", |found| found.as_str());
        let password = captures.get(3).map(|found| found.as_str());
        if let Some(credential) = credential_of(&captures[1], user, password) {
            masked = masked.replace(credential, MASK);
        }
    }
    masked
}

/// Whether `text` holds a URL with a credential in it (what [`mask_url_credentials`] hides).
#[must_use]
pub(crate) fn has_url_credentials(text: &str) -> bool {
    URL_USERINFO.captures_iter(text).any(|captures| {
        credential_of(
            &captures[1],
            captures.get(2).map_or("", |found| found.as_str()),
            captures.get(3).map(|found| found.as_str()),
        )
        .is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_and_https_tokens_are_masked_and_nothing_else() {
        let masked = |text: &str| mask_url_credentials(text).into_owned();
        assert_eq!(
            masked("source = \"https://user:tok3n@git.example.com/rules.git\""),
            "source = \"https://user:****@git.example.com/rules.git\""
        );
        assert_eq!(
            masked("git+https://ghp_abc@github.com/o/r and http://a:b@c/"),
            "git+https://****@github.com/o/r and http://a:****@c/"
        );
        assert_eq!(
            masked("ssh://git@github.com/o/r.git"),
            "ssh://git@github.com/o/r.git"
        );
        assert_eq!(masked("https://example.com/a@b"), "https://example.com/a@b");
        assert_eq!(masked("mail me: a@b.c"), "mail me: a@b.c");
        assert_eq!(
            mask_credentials_of(
                "cannot reach https://user:tok3n@h/x (password tok3n refused)",
                "git+https://user:tok3n@h/x"
            ),
            "cannot reach https://user:****@h/x (password **** refused)"
        );
        assert!(has_url_credentials("https://user:tok3n@h/x"));
        assert!(!has_url_credentials("ssh://git@h/x"));
        assert!(!has_url_credentials("https://h/x"));
    }
}
