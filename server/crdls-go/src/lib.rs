//! Ports of the Go functions whose exact behaviour Kubernetes users see in the API server's answers:
//! `time.ParseDuration` and `time.Parse` (for RFC 3339), `strconv` quoting and float printing, `net/netip` and `k8s.io/utils/net` IP
//! parsing, `net/url.ParseRequestURI`, `net/mail.ParseAddress`, the apimachinery name validators,
//! kube-openapi's string formats, RE2 pattern syntax and `sort.Slice`. One port of each, in this leaf crate, so the
//! CEL evaluator and the checkers can never disagree about a value.

pub mod base64;
pub mod duration;
pub mod formats;
pub mod ip;
mod isprint;
pub mod names;
pub mod pattern;
pub mod print;
pub mod quantity;
pub mod sort;
pub mod time;
pub mod url;
