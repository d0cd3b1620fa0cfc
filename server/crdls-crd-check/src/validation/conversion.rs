//! `crd/conversion`: `spec.conversion`. The strategy is `None` (the default) or `Webhook`. A webhook
//! needs `webhook.clientConfig` with exactly one of `url` (https, a host, no user, query or fragment)
//! and `service` (name, namespace, a port in 1–65535, a path of DNS-subdomain segments), and
//! `webhook.conversionReviewVersions`: distinct DNS-1035 labels, at least one of `v1` and `v1beta1`.
//! With `None`, no webhook settings. The API server reports these under its internal field names
//! (`spec.conversion.webhookClientConfig`, `spec.conversion.conversionReviewVersions`).
//!
//! Example: `strategy: Webhook` without `conversionReviewVersions`. Fix: `conversionReviewVersions: [v1]`.

use crdls_yaml::{Node, Value};

use crdls_diagnostics::TextRange;

use super::{fe, get, key_at, text, value_at, CrdDoc, Sink};
use crate::field_error::ErrorType;
use crate::{gofmt, names};
use crdls_diagnostics::codes;

const CODE: &str = codes::CRD_CONVERSION;
const FORM: &str = "; desired format: https://host[/path]";

pub(super) fn check(crd: &CrdDoc<'_>, sink: &mut Sink<'_>) {
    let Some(spec) = crd.spec else { return };
    // v1 defaulting: no conversion means strategy None.
    let Some(conversion) = get(spec, "conversion") else { return };
    let anchor = key_at(spec, "conversion", crd.spec_anchor());
    let strategy = text(conversion, "strategy");
    let strategy_at = value_at(conversion, "strategy", anchor);
    if strategy != "None" && crd.preserves_unknown_fields() {
        let value = get(conversion, "strategy").map_or("\"\"".into(), gofmt::json);
        sink.error(
            strategy_at,
            CODE,
            fe(ErrorType::Invalid, "spec.conversion.strategy", Some(value), "must be None if spec.preserveUnknownFields is true"),
            "conversion webhooks need pruning: strategy must be None while spec.preserveUnknownFields is true",
        );
    }
    if strategy.is_empty() {
        sink.error(
            strategy_at,
            CODE,
            fe(ErrorType::Required, "spec.conversion.strategy", None, ""),
            "spec.conversion.strategy is required: None or Webhook",
        );
    } else if strategy != "None" && strategy != "Webhook" {
        sink.error(
            strategy_at,
            CODE,
            fe(ErrorType::NotSupported, "spec.conversion.strategy", Some(gofmt::quote(strategy)), r#"supported values: "None", "Webhook""#),
            "the conversion strategy must be None or Webhook",
        );
    }
    let webhook = get(conversion, "webhook");
    let client_config = webhook.and_then(|w| get(w, "clientConfig"));
    let review_versions = webhook.and_then(|w| get(w, "conversionReviewVersions"));
    let client_at = webhook.map_or(strategy_at, |w| key_at(w, "clientConfig", key_at(conversion, "webhook", anchor)));
    if strategy == "Webhook" {
        match client_config {
            None => sink.error(
                client_at,
                CODE,
                fe(ErrorType::Required, "spec.conversion.webhookClientConfig", None, "required when strategy is set to Webhook"),
                "a Webhook conversion needs webhook.clientConfig (a url or a service)",
            ),
            Some(cc) => client(cc, client_at, sink),
        }
        review(webhook, review_versions, key_at(conversion, "webhook", strategy_at), sink);
    } else {
        if client_config.is_some() {
            sink.error(
                client_at,
                CODE,
                fe(
                    ErrorType::Forbidden,
                    "spec.conversion.webhookClientConfig",
                    None,
                    "should not be set when strategy is not set to Webhook",
                ),
                "webhook.clientConfig is only for strategy: Webhook",
            );
        }
        if review_versions.and_then(Node::as_seq).is_some_and(|l| !l.is_empty()) {
            let at = webhook.map_or(anchor, |w| key_at(w, "conversionReviewVersions", anchor));
            sink.error(
                at,
                CODE,
                fe(
                    ErrorType::Forbidden,
                    "spec.conversion.conversionReviewVersions",
                    None,
                    "should not be set when strategy is not set to Webhook",
                ),
                "webhook.conversionReviewVersions is only for strategy: Webhook",
            );
        }
    }
}

fn client(cc: &Node, anchor: TextRange, sink: &mut Sink<'_>) {
    let url = get(cc, "url");
    let service = get(cc, "service");
    let base = "spec.conversion.webhookClientConfig";
    if url.is_some() == service.is_some() {
        sink.error(
            anchor,
            CODE,
            fe(ErrorType::Required, base, None, "exactly one of url or service is required"),
            "clientConfig needs exactly one of url and service",
        );
        return;
    }
    if let Some(url) = url {
        webhook_url(url.as_str().unwrap_or_default(), url.range, &format!("{base}.url"), sink);
    }
    if let Some(service) = service {
        webhook_service(service, key_at(cc, "service", anchor), &format!("{base}.service"), sink);
    }
}

fn webhook_url(raw: &str, at: TextRange, path: &str, sink: &mut Sink<'_>) {
    let url = match parse_url(raw) {
        Ok(url) => url,
        Err(e) => {
            let detail = format!("url must be a valid URL: parse {}: {e}{FORM}", gofmt::quote(raw));
            sink.error(at, CODE, fe(ErrorType::Required, path, None, &detail), format!("not a valid URL: {e}"));
            return;
        }
    };
    let mut invalid = |value: &str, detail: String, message: &str| {
        sink.error(at, CODE, fe(ErrorType::Invalid, path, Some(gofmt::quote(value)), detail), message.to_string());
    };
    if url.scheme != "https" {
        invalid(&url.scheme, format!("'https' is the only allowed URL scheme{FORM}"), "a conversion webhook URL must use https");
    }
    if url.host.is_empty() {
        invalid("", format!("host must be specified{FORM}"), "the webhook URL needs a host");
    }
    if let Some(user) = &url.user {
        invalid(user, "user information is not permitted in the URL".into(), "the webhook URL may not contain user information");
    }
    if !url.fragment.is_empty() {
        invalid(&url.fragment, "fragments are not permitted in the URL".into(), "the webhook URL may not have a #fragment");
    }
    if !url.query.is_empty() {
        invalid(&url.query, "query parameters are not permitted in the URL".into(), "the webhook URL may not have ?query parameters");
    }
}

fn webhook_service(service: &Node, anchor: TextRange, path: &str, sink: &mut Sink<'_>) {
    // CRD validation passes the service's name and namespace swapped to `ValidateWebhookService`
    // (every release up to 1.37 at least), so a missing name is reported at `service.namespace`
    // and a missing namespace at `service.name`.
    for (key, reported) in [("namespace", "name"), ("name", "namespace")] {
        if text(service, key).is_empty() {
            sink.error(
                value_at(service, key, anchor),
                CODE,
                fe(ErrorType::Required, format!("{path}.{reported}"), None, ""),
                format!("the webhook service needs a {key} (the API server reports it as service.{reported}: it swaps the two)"),
            );
        }
    }
    // v1 defaulting: port 443.
    if let Some(port) = get(service, "port") {
        if let Value::Int(p) = port.value {
            if !(1..=65535).contains(&p) {
                sink.error(
                    port.range,
                    CODE,
                    fe(
                        ErrorType::Invalid,
                        format!("{path}.port"),
                        Some(p.to_string()),
                        "port is not valid: must be between 1 and 65535, inclusive",
                    ),
                    "the port must be between 1 and 65535",
                );
            }
        }
    }
    let Some(path_node) = get(service, "path") else { return };
    let url_path = path_node.as_str().unwrap_or_default();
    if url_path.is_empty() || url_path == "/" {
        return;
    }
    let p = format!("{path}.path");
    let mut invalid = |detail: String| {
        let message = format!("the webhook path {detail}");
        sink.error(path_node.range, CODE, fe(ErrorType::Invalid, &p, Some(gofmt::quote(url_path)), detail), message);
    };
    if url_path == "//" {
        invalid("segment[0] may not be empty".into());
        return;
    }
    if !url_path.starts_with('/') {
        invalid("must start with a '/'".into());
    }
    let check = url_path.get(1..).unwrap_or_default();
    let check = check.strip_suffix('/').unwrap_or(check);
    for (i, step) in check.split('/').enumerate() {
        if step.is_empty() {
            invalid(format!("segment[{i}] may not be empty"));
            continue;
        }
        for failure in names::dns1123_subdomain(step) {
            invalid(format!("segment[{i}]: {failure}"));
        }
    }
}

fn review(webhook: Option<&Node>, versions: Option<&Node>, anchor: TextRange, sink: &mut Sink<'_>) {
    let path = "spec.conversion.conversionReviewVersions";
    let list = versions.and_then(Node::as_seq).unwrap_or_default();
    if list.is_empty() {
        let at = webhook.map_or(anchor, |w| key_at(w, "conversionReviewVersions", anchor));
        sink.error(
            at,
            CODE,
            fe(ErrorType::Required, path, None, ""),
            "a Webhook conversion needs webhook.conversionReviewVersions, such as [v1]",
        );
        return;
    }
    let mut seen: Vec<&str> = Vec::new();
    let mut accepted = false;
    for (j, item) in list.iter().enumerate() {
        let v = item.as_str().unwrap_or_default();
        let p = format!("{path}[{j}]");
        if seen.contains(&v) {
            sink.error(
                item.range,
                CODE,
                fe(ErrorType::Invalid, &p, Some(gofmt::quote(v)), "duplicate version"),
                format!("{v} is listed twice"),
            );
            continue;
        }
        seen.push(v);
        for e in names::dns1035_label(v) {
            sink.error(item.range, CODE, fe(ErrorType::Invalid, &p, Some(gofmt::quote(v)), &e), e.clone());
        }
        accepted |= v == "v1" || v == "v1beta1";
    }
    if !accepted {
        let at = versions.map_or(anchor, |v| v.range);
        let value = versions.map_or("null".into(), gofmt::json);
        sink.error(
            at,
            CODE,
            fe(ErrorType::Invalid, path, Some(value), "must include at least one of v1, v1beta1"),
            "conversionReviewVersions must include v1 (or v1beta1): the API server speaks no other ConversionReview version",
        );
    }
}

/// The parts of a URL the webhook checks look at.
struct Url {
    scheme: String,
    user: Option<String>,
    host: String,
    query: String,
    fragment: String,
}

/// Go's `url.Parse`, as far as the webhook checks need it: the error text, or the parts.
fn parse_url(raw: &str) -> Result<Url, String> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    let (rest, fragment) = match raw.split_once('#') {
        Some((r, f)) => (r, unescape(f)?),
        None => (raw, String::new()),
    };
    let (scheme, rest) = scheme(rest)?;
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, q.to_string()),
        None => (rest, String::new()),
    };
    let mut url = Url { scheme: scheme.to_lowercase(), user: None, host: String::new(), query, fragment };
    if !url.scheme.is_empty() && !rest.starts_with('/') {
        // An opaque URL (`https:host`): no host.
        return Ok(url);
    }
    if let Some(authority_and_path) = rest.strip_prefix("//") {
        let end = authority_and_path.find('/').unwrap_or(authority_and_path.len());
        let authority = &authority_and_path[..end];
        let host = match authority.rfind('@') {
            Some(at) => {
                let user = &authority[..at];
                if !user.chars().all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c)) {
                    return Err("net/url: invalid userinfo".into());
                }
                url.user = Some(unescape(user)?);
                &authority[at + 1..]
            }
            None => authority,
        };
        if let Some(colon) = host.rfind(':').filter(|&c| !host[c..].contains(']')) {
            let port = &host[colon + 1..];
            if !port.chars().all(|c| c.is_ascii_digit()) {
                return Err(format!("invalid port {} after host", gofmt::quote(&host[colon..])));
            }
        }
        url.host = unescape(host)?;
        unescape(&authority_and_path[end..])?;
    } else {
        if url.scheme.is_empty() && rest.split('/').next().is_some_and(|first| first.contains(':')) {
            return Err("first path segment in URL cannot contain colon".into());
        }
        unescape(rest)?;
    }
    Ok(url)
}

/// The scheme and the rest (`getScheme`): a letter, then letters, digits, `+`, `-` or `.`, up to `:`.
fn scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.char_indices() {
        match c {
            'a'..='z' | 'A'..='Z' => {}
            '0'..='9' | '+' | '-' | '.' if i > 0 => {}
            ':' if i == 0 => return Err("missing protocol scheme".into()),
            ':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// Percent-decoding, with Go's error for a bad escape.
fn unescape(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).filter(|h| h.iter().all(u8::is_ascii_hexdigit));
            let Some(hex) = hex else {
                let end = (i + 3).min(bytes.len());
                return Err(format!("invalid URL escape {}", gofmt::quote(&String::from_utf8_lossy(&bytes[i..end]))));
            };
            out.push(u8::from_str_radix(std::str::from_utf8(hex).unwrap_or("00"), 16).unwrap_or(0));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}
