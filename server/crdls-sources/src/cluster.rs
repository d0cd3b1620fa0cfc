//! CRDs from the cluster of a kubeconfig context: the `apiextensions.k8s.io/v1` CRDs it serves, listed
//! read-only page by page through kube-rs (which does the kubeconfig: contexts, bearer tokens and token
//! files, client certificates, CA data, exec credential plugins, proxies), and cached like a URL.

use std::path::PathBuf;
use std::time::Duration;

use kube::config::{ExecInteractiveMode, KubeConfigOptions, Kubeconfig};
use serde_json::{Map, Value};

use crate::cache::{now, read_cached};
use crate::{Cache, Fetched, Network, SourceError};

/// CRDs asked for per page (kubectl asks for 500; CRDs are large, so fewer keeps a page small).
const PAGE_SIZE: usize = 100;
/// How long the whole listing may take.
const LIST_TIMEOUT: Duration = Duration::from_secs(120);
/// The most pages read (100,000 CRDs); a server that never stops giving continue tokens is cut off.
const MAX_PAGES: usize = 1000;

/// Which cluster to read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterOptions {
    /// The kubeconfig file; `None` means `$KUBECONFIG` (a list of files), else `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// The context; `None` means the kubeconfig's current context.
    pub context: Option<String>,
    /// Whether an exec credential plugin may talk to the user through standard input. A language
    /// server must say no: its standard input carries the editor's messages.
    pub interactive: bool,
}

/// The CRDs the cluster serves, as one YAML stream: from the cache when `network` allows, else listed.
pub fn fetch(options: &ClusterOptions, cache: &Cache, network: Network) -> Result<Fetched, SourceError> {
    let failed = |label: &str, reason: String| SourceError::Fetch { label: label.to_string(), reason };
    let kubeconfig = match &options.kubeconfig {
        Some(path) => Kubeconfig::read_from(path),
        None => Kubeconfig::read(),
    }
    .map_err(|e| failed("the cluster", format!("cannot read the kubeconfig: {}", error_chain(&e))))?;
    let context = options.context.clone().or_else(|| kubeconfig.current_context.clone()).unwrap_or_default();
    let label = if context.is_empty() { "the cluster".to_string() } else { format!("cluster {context}") };
    let server = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
        .and_then(|c| kubeconfig.clusters.iter().find(|cluster| cluster.name == c.cluster))
        .and_then(|c| c.cluster.as_ref())
        .and_then(|c| c.server.clone());
    let Some(server) = server else {
        let reason = if context.is_empty() {
            "the kubeconfig has no current context; name one with --context".to_string()
        } else {
            format!("the kubeconfig has no context {context} with a cluster server")
        };
        return Err(failed(&label, reason));
    };
    let path = cache.entry("cluster", &format!("{context}@{server}"), &context);
    if network != Network::Refresh {
        if let Some((text, fetched_at)) = read_cached(&path) {
            return Ok(Fetched { label, path, text, downloaded: false, fetched_at, refresh_failed: None });
        }
    }
    if network == Network::Offline {
        return Err(SourceError::NotCached { label });
    }
    let mut kubeconfig = kubeconfig;
    if !options.interactive {
        for user in kubeconfig.auth_infos.iter_mut() {
            if let Some(exec) = user.auth_info.as_mut().and_then(|a| a.exec.as_mut()) {
                exec.interactive_mode = Some(ExecInteractiveMode::Never);
            }
        }
    }
    let kube_options = KubeConfigOptions { context: Some(context.clone()), ..KubeConfigOptions::default() };
    // The listing runs on a runtime of its own, on a thread of its own, so that it can be called from
    // plain code and from a blocking task of the language server's runtime alike.
    let listed: Result<Vec<Value>, String> = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
                runtime.block_on(async {
                    match tokio::time::timeout(LIST_TIMEOUT, list(kubeconfig, &kube_options)).await {
                        Ok(result) => result,
                        Err(_) => Err(format!("no answer within {} s", LIST_TIMEOUT.as_secs())),
                    }
                })
            })
            .join()
            .unwrap_or_else(|_| Err("the listing failed unexpectedly".into()))
    });
    let listed = match listed {
        Ok(listed) => listed,
        Err(reason) => {
            // A refresh that fails keeps the listing that worked before.
            return match read_cached(&path) {
                Some((text, fetched_at)) if network == Network::Refresh => {
                    Ok(Fetched { label, path, text, downloaded: false, fetched_at, refresh_failed: Some(reason) })
                }
                _ => Err(failed(&label, reason)),
            };
        }
    };
    let text = render(&context, &server, &listed);
    cache.write(&path, text.as_bytes()).map_err(|e| failed(&label, format!("cannot write the cache {}: {e}", path.display())))?;
    Ok(Fetched { label, path, text, downloaded: true, fetched_at: now(), refresh_failed: None })
}

/// Every CRD of the cluster, page by page.
async fn list(kubeconfig: Kubeconfig, options: &KubeConfigOptions) -> Result<Vec<Value>, String> {
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, options).await.map_err(|e| error_chain(&e))?;
    config.connect_timeout = Some(Duration::from_secs(10));
    config.read_timeout = Some(Duration::from_secs(60));
    let client = kube::Client::try_from(config).map_err(|e| error_chain(&e))?;
    let mut items = Vec::new();
    let mut token: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut uri = format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions?limit={PAGE_SIZE}");
        if let Some(token) = &token {
            uri.push_str("&continue=");
            uri.push_str(&percent_encode(token));
        }
        let request = http::Request::get(uri).body(Vec::new()).map_err(|e| e.to_string())?;
        let text = client.request_text(request).await.map_err(|e| error_chain(&e))?;
        let mut page: Value = serde_json::from_str(&text).map_err(|e| format!("the CRD list is not JSON: {e}"))?;
        if let Some(Value::Array(page_items)) = page.get_mut("items").map(Value::take) {
            items.extend(page_items);
        }
        let next = page.pointer("/metadata/continue").and_then(Value::as_str).filter(|t| !t.is_empty()).map(str::to_string);
        if next.is_none() {
            return Ok(items);
        }
        if next == token {
            return Err("the server gave the same continue token twice".into());
        }
        pages += 1;
        if pages >= MAX_PAGES {
            return Err(format!("the CRD list goes on for more than {MAX_PAGES} pages"));
        }
        token = next;
    }
}

/// The listed CRDs as a YAML stream of JSON documents (JSON is YAML), each with the `apiVersion` and
/// `kind` a list leaves out, without server bookkeeping (managed fields, the last applied copy, status).
fn render(context: &str, server: &str, items: &[Value]) -> String {
    let mut out = format!("# The CRDs served by {server} (kubeconfig context {context}), listed by crdls.\n");
    for item in items {
        let mut crd = Map::new();
        crd.insert("apiVersion".into(), Value::from("apiextensions.k8s.io/v1"));
        crd.insert("kind".into(), Value::from("CustomResourceDefinition"));
        if let Value::Object(fields) = item {
            for (key, value) in fields {
                if !matches!(key.as_str(), "apiVersion" | "kind" | "status") {
                    crd.insert(key.clone(), value.clone());
                }
            }
        }
        if let Some(Value::Object(metadata)) = crd.get_mut("metadata") {
            metadata.remove("managedFields");
            if let Some(Value::Object(annotations)) = metadata.get_mut("annotations") {
                annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
                if annotations.is_empty() {
                    metadata.remove("annotations");
                }
            }
        }
        out.push_str("---\n");
        out.push_str(&serde_json::to_string_pretty(&Value::Object(crd)).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// An error and its causes in one line.
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// `token` escaped for a query string.
fn percent_encode(token: &str) -> String {
    token
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;
    use std::sync::{Arc, Mutex};

    /// A stand-in for the API server's CRD list: two pages, served only with `Authorization: Bearer
    /// <token>`; records the request lines.
    fn api_server(token: &'static str) -> (String, Arc<Mutex<Vec<String>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                let _ = reader.read_line(&mut request_line);
                let mut authorized = false;
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                    if line.to_ascii_lowercase().starts_with("authorization:") && line.trim_end().ends_with(&format!("Bearer {token}")) {
                        authorized = true;
                    }
                    line.clear();
                }
                log.lock().unwrap().push(request_line.trim().to_string());
                let (status, body) = if !authorized {
                    (401, r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}"#.to_string())
                } else if request_line.contains("continue=next%2Fpage") {
                    (200, page("b.example.com", ""))
                } else {
                    (200, page("a.example.com", "next/page"))
                };
                let mut stream = stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        (address, seen)
    }

    fn page(group: &str, next: &str) -> String {
        serde_json::json!({
            "kind": "CustomResourceDefinitionList",
            "apiVersion": "apiextensions.k8s.io/v1",
            "metadata": {"continue": next},
            "items": [{
                "metadata": {"name": format!("widgets.{group}"), "managedFields": [{"manager": "kubectl"}]},
                "spec": {"group": group, "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced",
                         "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}}}]},
                "status": {"storedVersions": ["v1"]}
            }]
        })
        .to_string()
    }

    fn kubeconfig(dir: &std::path::Path, server: &str, user: &str) -> PathBuf {
        let path = dir.join("kubeconfig");
        let text = format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: test\nclusters:\n- name: stand-in\n  cluster:\n    server: {server}\ncontexts:\n- name: test\n  context:\n    cluster: stand-in\n    user: me\n- name: other\n  context:\n    cluster: stand-in\n    user: nobody\nusers:\n- name: me\n  user:\n{user}- name: nobody\n  user: {{}}\n"
        );
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn lists_every_page_with_a_token_and_caches_it() {
        let dir = std::env::temp_dir().join(format!("crdls-cluster-token-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (server, seen) = api_server("s3cret");
        let options =
            ClusterOptions { kubeconfig: Some(kubeconfig(&dir, &server, "    token: s3cret\n")), context: None, interactive: true };
        let cache = Cache::at(dir.join("cache"));
        assert_eq!(fetch(&options, &cache, Network::Offline).unwrap_err(), SourceError::NotCached { label: "cluster test".into() });
        let fetched = fetch(&options, &cache, Network::CacheFirst).unwrap();
        assert!(fetched.downloaded);
        assert_eq!(fetched.label, "cluster test");
        assert_eq!(fetched.text.matches("---\n").count(), 2, "{}", fetched.text);
        assert!(fetched.text.contains("\"kind\": \"CustomResourceDefinition\""));
        assert!(fetched.text.contains("widgets.b.example.com"));
        assert!(!fetched.text.contains("managedFields") && !fetched.text.contains("storedVersions"));
        let requests = seen.lock().unwrap().clone();
        assert_eq!(
            requests,
            [
                "GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions?limit=100 HTTP/1.1",
                "GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions?limit=100&continue=next%2Fpage HTTP/1.1"
            ]
        );
        // The cache answers afterwards, also offline.
        assert!(!fetch(&options, &cache, Network::Offline).unwrap().downloaded);
        assert_eq!(seen.lock().unwrap().len(), 2);

        // Another context whose user has no credentials is refused by the server.
        let other = ClusterOptions { context: Some("other".into()), ..options.clone() };
        let err = fetch(&other, &cache, Network::CacheFirst).unwrap_err().to_string();
        assert!(err.starts_with("cannot fetch cluster other: ") && err.contains("Unauthorized"), "{err}");
        let missing = ClusterOptions { context: Some("nope".into()), ..options };
        assert_eq!(
            fetch(&missing, &cache, Network::CacheFirst).unwrap_err().to_string(),
            "cannot fetch cluster nope: the kubeconfig has no context nope with a cluster server"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Standard base64, as kubeconfig's `*-data` fields hold PEM.
    fn base64(bytes: &[u8]) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
            for i in 0..4 {
                out.push(if i <= chunk.len() { ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
            }
        }
        out
    }

    /// A stand-in API server over TLS that serves only clients with a certificate its CA signed:
    /// returns its address and the CA, and a client certificate and key (PEM).
    fn tls_api_server() -> (String, String, String, String) {
        use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};
        use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.distinguished_name.push(DnType::CommonName, "crdls test CA");
        let ca = ca_params.self_signed(&ca_key).unwrap();
        let server_key = KeyPair::generate().unwrap();
        let server = CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap().signed_by(&server_key, &ca, &ca_key).unwrap();
        let client_key = KeyPair::generate().unwrap();
        let mut client_params = CertificateParams::new(Vec::new()).unwrap();
        client_params.distinguished_name.push(DnType::CommonName, "crdls");
        let client = client_params.signed_by(&client_key, &ca, &ca_key).unwrap();

        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut roots = rustls::RootCertStore::empty();
        roots.add(ca.der().clone()).unwrap();
        let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone()).build().unwrap();
        let server_der: CertificateDer<'static> = server.der().clone();
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(server_key.serialize_der()));
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_client_cert_verifier(verifier)
            .with_single_cert(vec![server_der], key)
            .unwrap();
        let config = Arc::new(config);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = format!("https://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for tcp in listener.incoming().flatten() {
                let connection = rustls::ServerConnection::new(config.clone()).unwrap();
                let mut tls = rustls::StreamOwned::new(connection, tcp);
                let mut reader = BufReader::new(&mut tls);
                // A client without a certificate fails the handshake here, and reading ends.
                let mut line = String::new();
                loop {
                    line.clear();
                    match reader.read_line(&mut line) {
                        Ok(0) | Err(_) => break,
                        Ok(_) if line == "\r\n" => break,
                        Ok(_) => {}
                    }
                }
                let body = page("tls.example.com", "");
                let _ = write!(
                    tls,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = tls.flush();
                tls.conn.send_close_notify();
                let _ = tls.flush();
            }
        });
        (address, ca.pem(), client.pem(), client_key.serialize_pem())
    }

    #[test]
    fn presents_client_certificates_and_trusts_the_ca_data() {
        let dir = std::env::temp_dir().join(format!("crdls-cluster-tls-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (server, ca, cert, key) = tls_api_server();
        let with_ca = |user: &str| {
            let path = kubeconfig(&dir, &server, user);
            let text = std::fs::read_to_string(&path).unwrap().replace(
                &format!("    server: {server}\n"),
                &format!("    server: {server}\n    certificate-authority-data: {}\n", base64(ca.as_bytes())),
            );
            std::fs::write(&path, text).unwrap();
            ClusterOptions { kubeconfig: Some(path), context: Some("test".into()), interactive: false }
        };
        let user = format!("    client-certificate-data: {}\n    client-key-data: {}\n", base64(cert.as_bytes()), base64(key.as_bytes()));
        let fetched = fetch(&with_ca(&user), &Cache::at(dir.join("cache")), Network::Refresh).unwrap();
        assert!(fetched.text.contains("widgets.tls.example.com"), "{}", fetched.text);
        // Without the client certificate the server ends the handshake (an empty cache: no fallback).
        let err = fetch(&with_ca("    token: not-a-certificate\n"), &Cache::at(dir.join("empty")), Network::CacheFirst);
        assert!(err.as_ref().is_err_and(|e| e.to_string().starts_with("cannot fetch cluster test: ")), "{err:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn runs_exec_credential_plugins() {
        let dir = std::env::temp_dir().join(format!("crdls-cluster-exec-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (server, seen) = api_server("from-plugin");
        let credential = r#"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-plugin"}}"#;
        std::fs::create_dir_all(&dir).unwrap();
        let answer = dir.join("credential.json");
        std::fs::write(&answer, credential).unwrap();
        // The plugin answers only when told it may not ask the user anything (its standard input is
        // not the language server's): the kubeconfig leaves interactiveMode unset, crdls makes it Never.
        let plugin = dir.join("plugin.sh");
        let script = format!(
            "case \"$KUBERNETES_EXEC_INFO\" in *'\"interactive\":false'*) cat {:?};; *) echo interactive >&2; exit 1;; esac\n",
            answer.display().to_string()
        );
        std::fs::write(&plugin, script).unwrap();
        let user = format!(
            "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: sh\n      args: [{:?}]\n",
            plugin.display().to_string()
        );
        let options =
            ClusterOptions { kubeconfig: Some(kubeconfig(&dir, &server, &user)), context: Some("test".into()), interactive: false };
        let fetched = fetch(&options, &Cache::at(dir.join("cache")), Network::Refresh).unwrap();
        assert!(fetched.text.contains("widgets.a.example.com"), "{}", fetched.text);
        assert_eq!(seen.lock().unwrap().len(), 2);
        // Left interactive (as the command line leaves it), the same plugin refuses.
        let interactive = ClusterOptions { interactive: true, ..options };
        assert!(fetch(&interactive, &Cache::at(dir.join("other")), Network::Refresh).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
