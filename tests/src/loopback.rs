//! Loopback HTTP servers for tests of the CRD sources: a stand-in for a download site and for the API
//! server's CRD list. Each answers one request per connection and records the request lines, so a
//! test can say how often the network was used.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// A request as the handler sees it.
#[derive(Clone, Debug)]
pub struct Request {
    /// `GET /path?query HTTP/1.1`.
    pub line: String,
    /// The headers, names lowercased.
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// The value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// A running server; it stops with the test process.
pub struct Loopback {
    /// `http://127.0.0.1:PORT`.
    pub address: String,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Loopback {
    /// Starts a server whose `handler` answers each request with a status and a body.
    pub fn start(handler: impl Fn(&Request) -> (u16, String) + Send + 'static) -> Loopback {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port is free");
        let address = format!("http://{}", listener.local_addr().expect("the port is known"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let Ok(clone) = stream.try_clone() else { continue };
                let mut reader = BufReader::new(clone);
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    continue;
                }
                let mut headers = Vec::new();
                let mut header = String::new();
                while reader.read_line(&mut header).is_ok_and(|n| n > 0) && header != "\r\n" {
                    if let Some((name, value)) = header.trim_end().split_once(':') {
                        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
                    }
                    header.clear();
                }
                let request = Request { line: line.trim_end().to_string(), headers };
                log.lock().expect("the log is not poisoned").push(request.line.clone());
                let (status, body) = handler(&request);
                let mut stream = stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    if status == 200 { "OK" } else { "Error" },
                    body.len()
                );
            }
        });
        Loopback { address, requests }
    }

    /// The request lines received so far.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().expect("the log is not poisoned").clone()
    }
}

/// A kubeconfig whose current context `test` reaches `server` with the bearer token `token`.
pub fn kubeconfig(server: &str, token: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: test\nclusters:\n- name: stand-in\n  cluster:\n    server: {server}\ncontexts:\n- name: test\n  context:\n    cluster: stand-in\n    user: tester\nusers:\n- name: tester\n  user:\n    token: {token}\n"
    )
}

/// A stand-in for the API server's CRD list: `crds` (JSON objects as a list returns them, without
/// `apiVersion` and `kind`) in pages of one, served only to `Authorization: Bearer <token>`.
pub fn api_server(token: &'static str, crds: Vec<serde_json::Value>) -> Loopback {
    Loopback::start(move |request| {
        if request.header("authorization") != Some(&format!("Bearer {token}")) {
            let status =
                r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}"#;
            return (401, status.to_string());
        }
        if !request.line.starts_with("GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions?") {
            return (404, r#"{"kind":"Status","code":404}"#.to_string());
        }
        let page: usize =
            request.line.split("continue=page-").nth(1).and_then(|rest| rest.split([' ', '&']).next()?.parse().ok()).unwrap_or(0);
        let next = if page + 1 < crds.len() { format!("page-{}", page + 1) } else { String::new() };
        let items: Vec<serde_json::Value> = crds.get(page).cloned().into_iter().collect();
        let body = serde_json::json!({"kind": "CustomResourceDefinitionList", "apiVersion": "apiextensions.k8s.io/v1", "metadata": {"continue": next}, "items": items});
        (200, body.to_string())
    })
}
