//! Tests of `cluster`.

use super::*;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Instant;

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
                (
                    401,
                    r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}"#
                        .to_string(),
                )
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
    let options = ClusterOptions { kubeconfig: Some(kubeconfig(&dir, &server, "    token: s3cret\n")), context: None, interactive: true };
    let cache = Cache::at(dir.join("cache"));
    assert_eq!(fetch(&options, &cache, Network::Offline).unwrap_err(), SourceError::NotCached { label: "cluster test".into() });
    let fetched = fetch(&options, &cache, Network::CacheFirst).unwrap();
    assert!(fetched.downloaded);
    assert_eq!(fetched.label, "cluster test");
    assert_eq!(fetched.text.matches("---\n").count(), 2, "{}", fetched.text);
    assert!(fetched.text.contains("\"kind\": \"CustomResourceDefinition\""));
    assert!(fetched.text.contains("widgets.b.example.com"));
    assert!(!fetched.text.contains("managedFields"));
    // Of the status, only the stored versions are kept.
    assert!(fetched.text.contains("\"status\": {\n    \"storedVersions\": [\n      \"v1\"\n    ]\n  }"), "{}", fetched.text);
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
    let options = ClusterOptions { kubeconfig: Some(kubeconfig(&dir, &server, &user)), context: Some("test".into()), interactive: false };
    let fetched = fetch(&options, &Cache::at(dir.join("cache")), Network::Refresh).unwrap();
    assert!(fetched.text.contains("widgets.a.example.com"), "{}", fetched.text);
    assert_eq!(seen.lock().unwrap().len(), 2);
    // Left interactive (as the command line leaves it), the same plugin refuses.
    let interactive = ClusterOptions { interactive: true, ..options };
    assert!(fetch(&interactive, &Cache::at(dir.join("other")), Network::Refresh).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A kubeconfig whose user runs `script` (a shell script) as its exec plugin.
fn exec_kubeconfig(dir: &std::path::Path, server: &str, script: &str) -> ClusterOptions {
    std::fs::create_dir_all(dir).unwrap();
    let plugin = dir.join("plugin.sh");
    std::fs::write(&plugin, script).unwrap();
    let user = format!(
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: sh\n      args: [{:?}]\n",
        plugin.display().to_string()
    );
    ClusterOptions { kubeconfig: Some(kubeconfig(dir, server, &user)), context: Some("test".into()), interactive: false }
}

/// Runs `f` on a thread and fails the test if it has not returned within `seconds`, so that a test
/// of something that used to hang fails rather than hangs.
fn within<T: Send + 'static>(seconds: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(f());
    });
    receiver.recv_timeout(Duration::from_secs(seconds)).expect("it returned in time")
}

/// A reply without end (chunked, never finished) is cut off at the page limit with an error that
/// says so, rather than read until memory runs out.
#[test]
fn an_endless_page_is_cut_off_at_the_limit() {
    let dir = std::env::temp_dir().join(format!("crdls-cluster-endless-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let server = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                line.clear();
            }
            let mut stream = stream;
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
            let chunk = format!("{:x}\r\n{}\r\n", 1 << 20, " ".repeat(1 << 20));
            while stream.write_all(chunk.as_bytes()).is_ok() {}
        }
    });
    let options = ClusterOptions { kubeconfig: Some(kubeconfig(&dir, &server, "    token: t\n")), context: None, interactive: false };
    let cache = Cache::at(dir.join("cache"));
    let err = within(60, move || fetch(&options, &cache, Network::Refresh)).unwrap_err().to_string();
    assert_eq!(err, "cannot fetch cluster test: a page of the CRD list is larger than 64 MiB; not read");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Pages within their own limit that add up past the listing's are refused too.
#[test]
fn pages_together_have_a_limit() {
    let dir = std::env::temp_dir().join(format!("crdls-cluster-total-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let server = format!("http://{}", listener.local_addr().unwrap());
    let pad = " ".repeat(60 << 20);
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().flatten().enumerate() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                line.clear();
            }
            let body = format!("{{\"metadata\":{{\"continue\":\"p{n}\"}},\"items\":[]{pad}}}");
            let mut stream = stream;
            let _ = write!(stream, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n", body.len());
            let _ = stream.write_all(body.as_bytes());
        }
    });
    let options = ClusterOptions { kubeconfig: Some(kubeconfig(&dir, &server, "    token: t\n")), context: None, interactive: false };
    let cache = Cache::at(dir.join("cache"));
    let err = within(120, move || fetch(&options, &cache, Network::Refresh)).unwrap_err().to_string();
    assert_eq!(err, "cannot fetch cluster test: the CRD list is larger than 256 MiB in all; not read");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A plugin that prints without end is stopped at 1 MiB.
#[test]
fn an_exec_plugin_s_output_is_capped() {
    let dir = std::env::temp_dir().join(format!("crdls-cluster-chatty-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (server, seen) = api_server("never");
    let options = exec_kubeconfig(&dir, &server, "head -c 3000000 /dev/zero\n");
    let cache = Cache::at(dir.join("cache"));
    let err = within(60, move || fetch(&options, &cache, Network::Refresh)).unwrap_err().to_string();
    assert_eq!(err, "cannot fetch cluster test: the exec plugin sh printed more than 1 MiB; it was stopped");
    assert!(seen.lock().unwrap().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether process `pid` is gone (or a zombie, which holds nothing).
fn is_gone(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_or(true, |stat| stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
}

/// A plugin that hangs is killed at the deadline, with what it started (its process group), and
/// the error says so.
#[cfg(target_os = "linux")]
#[test]
fn a_hanging_exec_plugin_is_killed_at_the_deadline() {
    let dir = std::env::temp_dir().join(format!("crdls-cluster-hang-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (server, _) = api_server("never");
    let pid_file = dir.join("pid");
    let options = exec_kubeconfig(&dir, &server, &format!("sleep 300 &\necho $! > {:?}\nwait\n", pid_file.display().to_string()));
    let cache = Cache::at(dir.join("cache"));
    let started = Instant::now();
    let err = within(30, move || fetch_within(&options, &cache, Network::Refresh, Duration::from_secs(2))).unwrap_err().to_string();
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert_eq!(err, "cannot fetch cluster test: the exec plugin sh gave no credential within 2 s; it was stopped");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let gone = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        is_gone(pid.trim())
    });
    assert!(gone, "the plugin's child {} outlived it", pid.trim());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A process about to exit stops the plugins still running (the language server does, so that none
/// outlives it), with what they started.
#[cfg(target_os = "linux")]
#[test]
fn running_plugins_are_stopped_on_request() {
    let dir = std::env::temp_dir().join(format!("crdls-cluster-stop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (server, _) = api_server("never");
    let pid_file = dir.join("pid");
    let options = exec_kubeconfig(&dir, &server, &format!("sleep 300 &\necho $! > {:?}\nwait\n", pid_file.display().to_string()));
    let cache = Cache::at(dir.join("cache"));
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(fetch_within(&options, &cache, Network::Refresh, Duration::from_secs(100)));
    });
    let started = (0..1000).any(|_| {
        std::thread::sleep(Duration::from_millis(10));
        std::fs::read_to_string(&pid_file).is_ok_and(|p| p.ends_with('\n'))
    });
    assert!(started, "the plugin did not start");
    stop_plugins();
    let err = receiver.recv_timeout(Duration::from_secs(10)).expect("the fetch ended").unwrap_err().to_string();
    assert!(err.starts_with("cannot fetch cluster test: the exec plugin sh failed (signal: 9"), "{err}");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let gone = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        is_gone(pid.trim())
    });
    assert!(gone, "the plugin's child {} outlived it", pid.trim());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Listings asked for at once run one at a time, and one that waited for a listing of the same
/// cluster takes its outcome: the plugin runs once.
#[test]
fn one_listing_at_a_time() {
    let dir = std::env::temp_dir().join(format!("crdls-cluster-once-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (results, requests) = fetch_at_once(&dir, &Cache::at(dir.join("cache")), 3);
    for result in &results {
        assert!(result.as_ref().is_ok_and(|f| f.text.contains("widgets.b.example.com")), "{result:?}");
    }
    assert_eq!(std::fs::read_to_string(dir.join("runs")).unwrap(), "run\n");
    assert_eq!(requests, 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `calls` listings of one cluster asked for at once (the threads meet at a barrier first, so a busy
/// machine's late thread start does not make one arrive after the first listing ended), through an
/// exec plugin that takes two seconds and notes each of its runs in `dir/runs`; with how many requests
/// the API server saw.
fn fetch_at_once(dir: &std::path::Path, cache: &Cache, calls: usize) -> (Vec<Result<Fetched, SourceError>>, usize) {
    let (server, seen) = api_server("from-plugin");
    let runs = dir.join("runs");
    let credential = r#"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-plugin"}}"#;
    let script = format!("echo run >> {:?}\nsleep 2\necho '{credential}'\n", runs.display().to_string());
    let options = exec_kubeconfig(dir, &server, &script);
    let barrier = std::sync::Barrier::new(calls);
    let results = std::thread::scope(|scope| {
        let calls: Vec<_> = (0..calls)
            .map(|_| {
                scope.spawn(|| {
                    barrier.wait();
                    fetch(&options, cache, Network::Refresh)
                })
            })
            .collect();
        calls.into_iter().map(|c| c.join().unwrap()).collect()
    });
    let requests = seen.lock().unwrap().len();
    (results, requests)
}

/// A listing that could not be cached is not handed to the callers that waited for it: they are told
/// why, and the plugin still runs once.
#[test]
fn a_listing_that_cannot_be_cached_is_not_shared() {
    let dir = std::env::temp_dir().join(format!("crdls-cluster-unshared-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let blocked = dir.join("cache");
    std::fs::write(&blocked, "a file where the cache directory would be").unwrap();
    let (results, _) = fetch_at_once(&dir, &Cache::at(&blocked), 2);
    let (listed, waited): (Vec<_>, Vec<_>) = results.into_iter().partition(Result::is_ok);
    assert!(listed.len() == 1 && listed[0].as_ref().is_ok_and(|f| f.not_cached.is_some()), "{listed:?}");
    assert_eq!(waited[0].as_ref().unwrap_err(), &SourceError::Fetch { label: "cluster test".into(), reason: UNSHARED.into() });
    assert_eq!(std::fs::read_to_string(dir.join("runs")).unwrap(), "run\n");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The kubeconfig is read only if it is a regular file of a bounded size: a FIFO is not waited on,
/// a device not read without end.
#[cfg(unix)]
#[test]
fn the_kubeconfig_is_read_with_the_file_rules() {
    let dir = std::env::temp_dir().join(format!("crdls-cluster-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("kubeconfig");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let cache = Cache::at(dir.join("cache"));
    for (path, what) in [(fifo, "a FIFO"), (PathBuf::from("/dev/zero"), "a device")] {
        let options = ClusterOptions { kubeconfig: Some(path.clone()), context: None, interactive: false };
        let cache = cache.clone();
        let err = within(10, move || fetch(&options, &cache, Network::Refresh)).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "cannot fetch the cluster: cannot read the kubeconfig {}: not a regular file ({what}); crdls reads only regular files",
                path.display()
            )
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A listing that cannot be written to the cache is used, with a warning.
#[test]
fn a_listing_that_cannot_be_cached_is_used_with_a_warning() {
    let dir = std::env::temp_dir().join(format!("crdls-cluster-nocache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (server, _) = api_server("s3cret");
    let options = ClusterOptions { kubeconfig: Some(kubeconfig(&dir, &server, "    token: s3cret\n")), context: None, interactive: false };
    let blocked = dir.join("cache");
    std::fs::write(&blocked, "a file where the cache directory would be").unwrap();
    let fetched = fetch(&options, &Cache::at(&blocked), Network::Refresh).unwrap();
    assert!(fetched.downloaded && fetched.text.contains("widgets.b.example.com"));
    let warning = fetched.not_cached_warning().unwrap().to_string();
    assert!(warning.starts_with("cluster test was fetched but not cached: cannot write the cache "), "{warning}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reads_the_files_a_kubeconfig_names_itself_with_bounds() {
    let dir = std::env::temp_dir().join(format!("crdls-cluster-files-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (server, ca, cert, key) = tls_api_server();
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in [("ca.pem", &ca), ("client.crt", &cert), ("client.key", &key)] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let options = |ca_file: &str, user: &str| {
        let path = kubeconfig(&dir, &server, user);
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace(&format!("    server: {server}\n"), &format!("    server: {server}\n    certificate-authority: {ca_file}\n"));
        std::fs::write(&path, text).unwrap();
        ClusterOptions { kubeconfig: Some(path), context: Some("test".into()), interactive: false }
    };
    // Relative paths, from the kubeconfig's directory, read by crdls and handed to kube-rs inline.
    let files = "    client-certificate: client.crt\n    client-key: client.key\n";
    let fetched = fetch(&options("ca.pem", files), &Cache::at(dir.join("cache")), Network::Refresh).unwrap();
    assert!(fetched.text.contains("widgets.tls.example.com"), "{}", fetched.text);

    // A FIFO named as the CA is refused at once instead of blocking the listing.
    #[cfg(unix)]
    {
        let fifo = dir.join("ca.fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let started = Instant::now();
        let err = fetch(&options("ca.fifo", files), &Cache::at(dir.join("empty")), Network::Refresh).unwrap_err().to_string();
        assert!(err.contains("cannot read the certificate authority") && err.contains("a FIFO"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(60));
    }
    // A client key larger than any key is refused with the bound.
    std::fs::write(dir.join("huge.key"), vec![b'k'; (MAX_CREDENTIAL_FILE_BYTES + 1) as usize]).unwrap();
    let err = fetch(
        &options("ca.pem", "    client-certificate: client.crt\n    client-key: huge.key\n"),
        &Cache::at(dir.join("empty")),
        Network::Refresh,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("cannot read the client key") && err.contains("larger than the 1 MiB"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reads_token_files_and_refuses_auth_provider_commands() {
    let dir = std::env::temp_dir().join(format!("crdls-cluster-token-file-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (server, _) = api_server("from-file");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("token"), "from-file\n").unwrap();
    let options = |user: &str| ClusterOptions { kubeconfig: Some(kubeconfig(&dir, &server, user)), context: None, interactive: false };
    let fetched = fetch(&options("    tokenFile: token\n"), &Cache::at(dir.join("cache")), Network::Refresh).unwrap();
    assert!(fetched.text.contains("widgets.a.example.com"), "{}", fetched.text);

    // A legacy auth-provider with a command is never run.
    let marker = dir.join("ran");
    let script = dir.join("provider.sh");
    std::fs::write(&script, format!("touch {:?}\necho '{{}}'\n", marker.display().to_string())).unwrap();
    let user =
        format!("    auth-provider:\n      name: gcp\n      config:\n        cmd-path: sh\n        cmd-args: {}\n", script.display());
    let err = fetch(&options(&user), &Cache::at(dir.join("empty")), Network::Refresh).unwrap_err().to_string();
    assert!(err.contains("auth-provider (gcp) that runs a command"), "{err}");
    assert!(!marker.exists(), "the auth-provider command ran");
    let _ = std::fs::remove_dir_all(&dir);
}
