//! CRDs from the cluster of a kubeconfig context: the `apiextensions.k8s.io/v1` CRDs it serves, listed
//! read-only page by page through kube-rs (which does the rest of the kubeconfig: bearer tokens and
//! token files, client certificates, CA data, proxies), and cached like a URL.
//!
//! What kube-rs would do without limits is done here instead. The kubeconfig is read through the
//! bounded reader and handed to kube-rs parsed. An exec credential plugin is run here, in a process
//! group of its own, with its output capped and a deadline at which the group is killed; kube-rs then
//! gets the credential it printed. Each page of the listing, and all pages together, have a byte limit.
//!
//! Concurrency: at most one listing (with its plugin) runs at a time in a process. A caller that
//! finds one running waits for it, and if it was for the same cluster, takes its outcome instead of
//! listing again, so an editor's repeated refreshes cannot pile up plugins.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use kube::config::{ExecAuthCluster, ExecConfig, ExecInteractiveMode, KubeConfigOptions, Kubeconfig};
use serde_json::{Map, Value};

use crate::cache::{now, read_cached, MAX_ENTRY_BYTES};
use crate::{Cache, Fetched, Network, SourceError};

/// CRDs asked for per page (kubectl asks for 500; CRDs are large, so fewer keeps a page small).
const PAGE_SIZE: usize = 100;
/// How long the whole listing may take, the exec plugin included.
const LIST_TIMEOUT: Duration = Duration::from_secs(120);
/// The most pages read (100,000 CRDs); a server that never stops giving continue tokens is cut off.
const MAX_PAGES: usize = 1000;
/// The largest page of the listing accepted.
const MAX_PAGE_BYTES: u64 = 64 * 1024 * 1024;
/// The most the pages of a listing may hold together: a URL may be 64 MiB; clusters with every
/// Crossplane provider family installed list a few hundred MiB of CRDs with their managed fields.
const MAX_LIST_BYTES: u64 = 256 * 1024 * 1024;
/// The largest kubeconfig read (they hold a few certificates; 16 MiB is the limit of a workspace file).
const MAX_KUBECONFIG_BYTES: u64 = 16 * 1024 * 1024;
/// The most an exec credential plugin may print (a credential is a few KiB).
const MAX_PLUGIN_OUTPUT: u64 = 1024 * 1024;
/// How much of a failed plugin's standard error is kept for the message.
const MAX_PLUGIN_ERROR: u64 = 64 * 1024;

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

/// The outcome of the last listing, for callers that waited for it (see the module's concurrency).
struct LastListing {
    path: PathBuf,
    finished: Instant,
    outcome: Result<(), String>,
}

/// Held while a listing runs.
static LISTING: Mutex<Option<LastListing>> = Mutex::new(None);

/// The process groups of the exec plugins running now.
static PLUGINS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// The CRDs the cluster serves, as one YAML stream: from the cache when `network` allows, else listed.
/// A listing that cannot be cached is used all the same, with the reason in [`Fetched::not_cached`].
pub fn fetch(options: &ClusterOptions, cache: &Cache, network: Network) -> Result<Fetched, SourceError> {
    fetch_within(options, cache, network, LIST_TIMEOUT)
}

/// [`fetch`], with the listing and its plugin given `timeout` rather than [`LIST_TIMEOUT`].
pub(crate) fn fetch_within(options: &ClusterOptions, cache: &Cache, network: Network, timeout: Duration) -> Result<Fetched, SourceError> {
    let failed = |label: &str, reason: String| SourceError::Fetch { label: label.to_string(), reason };
    let kubeconfig = load_kubeconfig(options.kubeconfig.as_deref()).map_err(|e| failed("the cluster", e))?;
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
            return Ok(Fetched { label, path, text, downloaded: false, fetched_at, refresh_failed: None, not_cached: None });
        }
    }
    if network == Network::Offline {
        return Err(SourceError::NotCached { label });
    }

    let waiting_since = Instant::now();
    let mut last = LISTING.lock().unwrap_or_else(PoisonError::into_inner);
    let shared = last.as_ref().filter(|l| l.path == path && l.finished >= waiting_since).map(|l| l.outcome.clone());
    let outcome = match shared {
        // The listing this call waited for was of the same cluster: its outcome stands for this one.
        Some(Ok(())) => match read_cached(&path) {
            Some((text, fetched_at)) => {
                return Ok(Fetched { label, path, text, downloaded: false, fetched_at, refresh_failed: None, not_cached: None })
            }
            None => Err("the listing that ended while this one waited could not be cached".to_string()),
        },
        Some(Err(reason)) => Err(reason),
        None => {
            let deadline = Deadline { at: Instant::now() + timeout, total: timeout };
            list_with_deadline(kubeconfig, &context, options.interactive, deadline)
                .map(|listed| render(&context, &server, &listed))
                .and_then(|text| match text.len() as u64 > MAX_ENTRY_BYTES {
                    true => Err(format!("the CRD list is larger than {} MiB written out", MAX_ENTRY_BYTES / (1024 * 1024))),
                    false => Ok(text),
                })
        }
    };
    let result = match outcome {
        Ok(text) => {
            let not_cached = cache.write(&path, text.as_bytes()).err().map(|e| format!("cannot write the cache {}: {e}", path.display()));
            // Only a cached listing can be shared with a caller that waited.
            let shared = if not_cached.is_some() { Err("not cached".to_string()) } else { Ok(()) };
            *last = Some(LastListing { path: path.clone(), finished: Instant::now(), outcome: shared });
            Ok(Fetched { label, path, text, downloaded: true, fetched_at: now(), refresh_failed: None, not_cached })
        }
        Err(reason) => {
            *last = Some(LastListing { path: path.clone(), finished: Instant::now(), outcome: Err(reason.clone()) });
            // A refresh that fails keeps the listing that worked before.
            match read_cached(&path) {
                Some((text, fetched_at)) if network == Network::Refresh => {
                    Ok(Fetched { label, path, text, downloaded: false, fetched_at, refresh_failed: Some(reason), not_cached: None })
                }
                _ => Err(failed(&label, reason)),
            }
        }
    };
    drop(last);
    result
}

/// The kubeconfig at `path`, else those `$KUBECONFIG` lists (merged, the first to set a value wins),
/// else `~/.kube/config`, each read through the bounded reader, with the relative paths in it made
/// absolute from its directory, as kube-rs does when it reads one itself.
fn load_kubeconfig(path: Option<&Path>) -> Result<Kubeconfig, String> {
    let paths: Vec<PathBuf> = match path {
        Some(path) => vec![path.to_path_buf()],
        None => match std::env::var_os("KUBECONFIG") {
            Some(list) if std::env::split_paths(&list).any(|p| !p.as_os_str().is_empty()) => {
                std::env::split_paths(&list).filter(|p| !p.as_os_str().is_empty()).collect()
            }
            _ => {
                let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"));
                let home = home.ok_or("cannot read the kubeconfig: there is no $KUBECONFIG and no home directory")?;
                vec![PathBuf::from(home).join(".kube").join("config")]
            }
        },
    };
    read_kubeconfigs(&paths)
}

/// Reads the kubeconfig files at `paths` and merges them (the first to set a value wins), each through
/// the bounded reader, with the relative paths in it made absolute from its directory. It only reads
/// and parses: it runs no exec plugin, reads none of the files a kubeconfig names and makes no
/// connection (the fuzzer's `kubeconfig` target calls it for that reason).
pub fn read_kubeconfigs(paths: &[PathBuf]) -> Result<Kubeconfig, String> {
    let mut merged: Option<Kubeconfig> = None;
    for path in paths {
        let text = crate::read::read_text(path, MAX_KUBECONFIG_BYTES)
            .map_err(|e| format!("cannot read the kubeconfig {}: {e}", path.display()))?;
        let mut config =
            Kubeconfig::from_yaml(&text).map_err(|e| format!("cannot read the kubeconfig {}: {}", path.display(), error_chain(&e)))?;
        if let Some(dir) = path.parent() {
            make_paths_absolute(&mut config, dir);
        }
        merged = Some(match merged {
            Some(first) => {
                first.merge(config).map_err(|e| format!("cannot merge the kubeconfig {}: {}", path.display(), error_chain(&e)))?
            }
            None => config,
        });
    }
    Ok(merged.unwrap_or_default())
}

/// Makes the files a kubeconfig names (CA, client certificate and key, token file, and a plugin
/// command given as a path) absolute from `dir`, the kubeconfig's directory, as kubectl does.
fn make_paths_absolute(config: &mut Kubeconfig, dir: &Path) {
    let absolute = |path: &mut Option<String>| {
        if let Some(p) = path.as_mut().filter(|p| !p.is_empty() && Path::new(p.as_str()).is_relative()) {
            *p = dir.join(&*p).to_string_lossy().into_owned();
        }
    };
    for cluster in config.clusters.iter_mut().filter_map(|c| c.cluster.as_mut()) {
        absolute(&mut cluster.certificate_authority);
    }
    for user in config.auth_infos.iter_mut().filter_map(|u| u.auth_info.as_mut()) {
        absolute(&mut user.client_certificate);
        absolute(&mut user.client_key);
        absolute(&mut user.token_file);
        if let Some(exec) = user.exec.as_mut() {
            // A bare command name is looked up in PATH; only one with a separator is a path.
            if exec.command.as_deref().is_some_and(|c| c.contains(std::path::MAIN_SEPARATOR)) {
                absolute(&mut exec.command);
            }
        }
    }
}

/// Runs the context's exec plugin (if its user has one) and the listing, all before `deadline`.
fn list_with_deadline(mut kubeconfig: Kubeconfig, context: &str, interactive: bool, deadline: Deadline) -> Result<Vec<Value>, String> {
    inline_named_files(&mut kubeconfig, context)?;
    run_exec_plugin(&mut kubeconfig, context, interactive, deadline)?;
    let kube_options = KubeConfigOptions { context: Some(context.to_string()), ..KubeConfigOptions::default() };
    // The listing runs on a runtime of its own, on a thread of its own, so that it can be called from
    // plain code and from a blocking task of the language server's runtime alike.
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
                runtime.block_on(async {
                    match tokio::time::timeout(deadline.left(), list(kubeconfig, &kube_options)).await {
                        Ok(result) => result,
                        Err(_) => Err(format!("no answer within {} s", deadline.total.as_secs())),
                    }
                })
            })
            .join()
            .unwrap_or_else(|_| Err("the listing failed unexpectedly".into()))
    })
}

/// The largest certificate, key or token file a kubeconfig may name.
const MAX_CREDENTIAL_FILE_BYTES: u64 = 1024 * 1024;

/// Reads the files that the cluster and user of `context` name (certificate authority, client
/// certificate and key, token file) through the bounded reader and puts their contents in the
/// kubeconfig in their place, so that kube-rs opens no file itself: a FIFO, a device or a huge file
/// named there gets a clear error instead of a hang. It refuses a legacy auth-provider that would run
/// a command (`cmd-path`), which kube-rs would run without a deadline; an exec plugin does that job.
fn inline_named_files(kubeconfig: &mut Kubeconfig, context: &str) -> Result<(), String> {
    let Some(ctx) = kubeconfig.contexts.iter().find(|c| c.name == context).and_then(|c| c.context.clone()) else { return Ok(()) };
    let read = |what: &str, path: &str| {
        crate::read::read_bytes(Path::new(path), MAX_CREDENTIAL_FILE_BYTES)
            .map_err(|e| format!("cannot read the {what} {path} that the kubeconfig names: {e}"))
    };
    if let Some(cluster) = kubeconfig.clusters.iter_mut().find(|c| c.name == ctx.cluster).and_then(|c| c.cluster.as_mut()) {
        if let Some(path) = cluster.certificate_authority.take().filter(|p| !p.is_empty()) {
            if cluster.certificate_authority_data.is_none() {
                cluster.certificate_authority_data = Some(base64(&read("certificate authority", &path)?));
            }
        }
    }
    let Some(user_name) = ctx.user.clone() else { return Ok(()) };
    let Some(user) = kubeconfig.auth_infos.iter_mut().find(|u| u.name == user_name).and_then(|u| u.auth_info.as_mut()) else {
        return Ok(());
    };
    if let Some(provider) = &user.auth_provider {
        if provider.config.contains_key("cmd-path") {
            return Err(format!(
                "the kubeconfig's user {user_name} has an auth-provider ({}) that runs a command; crdls does not run those (kubectl stopped in 1.26): use an exec credential plugin",
                provider.name
            ));
        }
    }
    // kube-rs keeps secrets in its own string type; it is made through its deserializer.
    let secret = |key: &str, value: String| {
        serde_json::from_value::<kube::config::AuthInfo>(serde_json::json!({ key: value })).map_err(|e| e.to_string())
    };
    if let Some(path) = user.client_certificate.take().filter(|p| !p.is_empty()) {
        if user.client_certificate_data.is_none() {
            user.client_certificate_data = Some(base64(&read("client certificate", &path)?));
        }
    }
    if let Some(path) = user.client_key.take().filter(|p| !p.is_empty()) {
        if user.client_key_data.is_none() {
            user.client_key_data = secret("client-key-data", base64(&read("client key", &path)?))?.client_key_data;
        }
    }
    if let Some(path) = user.token_file.take().filter(|p| !p.is_empty()) {
        // As in client-go, a token given inline wins over the token file.
        if user.token.is_none() {
            let token = String::from_utf8(read("token file", &path)?).map_err(|_| format!("the token file {path} is not UTF-8"))?;
            user.token = secret("token", token.trim().to_string())?.token;
        }
    }
    Ok(())
}

/// If the user of `context` has an exec credential plugin, runs it (see [`run_plugin`]) and replaces
/// the plugin in `kubeconfig` by the credential it printed, so kube-rs never runs it.
fn run_exec_plugin(kubeconfig: &mut Kubeconfig, context: &str, interactive: bool, deadline: Deadline) -> Result<(), String> {
    let Some(ctx) = kubeconfig.contexts.iter().find(|c| c.name == context).and_then(|c| c.context.clone()) else { return Ok(()) };
    let Some(user_name) = ctx.user.clone() else { return Ok(()) };
    let cluster = kubeconfig.clusters.iter().find(|c| c.name == ctx.cluster).and_then(|c| c.cluster.clone());
    let Some(user) = kubeconfig.auth_infos.iter_mut().find(|u| u.name == user_name).and_then(|u| u.auth_info.as_mut()) else {
        return Ok(());
    };
    let Some(exec) = user.exec.take() else { return Ok(()) };
    let interactive = interactive && exec.interactive_mode != Some(ExecInteractiveMode::Never);
    let cluster_info = match (exec.provide_cluster_info, &cluster) {
        (true, Some(cluster)) => Some(ExecAuthCluster::try_from(cluster).map_err(|e| error_chain(&e))?),
        _ => None,
    };
    let credential = run_plugin(&exec, interactive, cluster_info, deadline)?;
    let status = credential.get("status").cloned().unwrap_or(Value::Null);
    let text = |key: &str| status.get(key).and_then(Value::as_str).filter(|v| !v.is_empty()).map(str::to_string);
    // kube-rs keeps secrets in its own string type; it is made through its deserializer.
    let secret = |key: &str, value: String| {
        serde_json::from_value::<kube::config::AuthInfo>(serde_json::json!({ key: value })).map_err(|e| e.to_string())
    };
    match (text("token"), text("clientCertificateData"), text("clientKeyData")) {
        (Some(token), _, _) => user.token = secret("token", token)?.token,
        (None, Some(cert), Some(key)) => {
            user.client_certificate_data = Some(base64(cert.as_bytes()));
            user.client_key_data = secret("client-key-data", base64(key.as_bytes()))?.client_key_data;
        }
        _ => return Err("the exec plugin printed no token and no client certificate and key".into()),
    }
    Ok(())
}

/// Runs an exec credential plugin as kubectl does (its arguments, its environment, the
/// `KUBERNETES_EXEC_INFO` request), in a process group of its own, and returns the `ExecCredential`
/// it printed. Its output is capped at [`MAX_PLUGIN_OUTPUT`]; at `deadline`, or past the cap, the
/// whole group is killed.
fn run_plugin(exec: &ExecConfig, interactive: bool, cluster: Option<ExecAuthCluster>, deadline: Deadline) -> Result<Value, String> {
    let program = exec.command.as_deref().filter(|c| !c.is_empty()).ok_or("the exec plugin has no command")?;
    let mut command = Command::new(program);
    command.args(exec.args.iter().flatten());
    for pair in exec.env.iter().flatten() {
        if let (Some(name), Some(value)) = (pair.get("name"), pair.get("value")) {
            command.env(name, value);
        }
    }
    let mut spec = Map::new();
    spec.insert("interactive".into(), Value::Bool(interactive));
    if let Some(cluster) = cluster {
        spec.insert("cluster".into(), serde_json::to_value(cluster).map_err(|e| e.to_string())?);
    }
    let request = serde_json::json!({
        "apiVersion": exec.api_version.clone().unwrap_or_else(|| "client.authentication.k8s.io/v1".into()),
        "kind": "ExecCredential",
        "spec": spec,
    });
    command.env("KUBERNETES_EXEC_INFO", request.to_string());
    for name in exec.drop_env.iter().flatten() {
        command.env_remove(name);
    }
    command.stdout(Stdio::piped());
    if interactive {
        command.stdin(Stdio::inherit()).stderr(Stdio::inherit());
    } else {
        command.stdin(Stdio::null()).stderr(Stdio::piped());
    }
    // A group of its own lets the plugin be killed with all it started. An interactive plugin stays in
    // the terminal's foreground group: in another, reading the terminal would stop it.
    #[cfg(unix)]
    if !interactive {
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
    }
    let mut child = command.spawn().map_err(|e| format!("cannot run the exec plugin {program}: {e}"))?;
    let group = Group::new(child.id(), !interactive);
    let stdout = bounded_reader(child.stdout.take(), MAX_PLUGIN_OUTPUT);
    let stderr = bounded_reader(child.stderr.take(), MAX_PLUGIN_ERROR);
    let waited = wait_until(&mut child, &stdout, deadline);
    let output = match waited {
        Waited::Exited(status) => {
            // Something the plugin started may hold its output open: the deadline holds for that too.
            let Some(output) = stdout.recv_timeout(deadline.left()) else {
                group.kill(&mut child);
                return Err(format!("the output of the exec plugin {program} did not end in time; it was stopped"));
            };
            if !status.success() {
                let said = stderr.recv_timeout(Duration::from_millis(100)).unwrap_or_default();
                let said = String::from_utf8_lossy(&said);
                let said = said.trim().lines().last().unwrap_or_default();
                let said = if said.is_empty() { String::new() } else { format!(": {said}") };
                return Err(format!("the exec plugin {program} failed ({status}){said}"));
            }
            output
        }
        Waited::TooMuch => {
            group.kill(&mut child);
            return Err(format!("the exec plugin {program} printed more than {} MiB; it was stopped", MAX_PLUGIN_OUTPUT / (1024 * 1024)));
        }
        Waited::TimedOut => {
            group.kill(&mut child);
            return Err(format!("the exec plugin {program} gave no credential within {} s; it was stopped", deadline.total.as_secs()));
        }
    };
    if output.len() as u64 > MAX_PLUGIN_OUTPUT {
        return Err(format!("the exec plugin {program} printed more than {} MiB", MAX_PLUGIN_OUTPUT / (1024 * 1024)));
    }
    serde_json::from_slice(&output).map_err(|e| format!("the exec plugin {program} printed no ExecCredential JSON: {e}"))
}

/// When a listing must be over, and how long it was given.
#[derive(Clone, Copy)]
struct Deadline {
    at: Instant,
    total: Duration,
}

impl Deadline {
    fn left(self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }
}

/// How waiting for a plugin ended.
enum Waited {
    Exited(std::process::ExitStatus),
    TooMuch,
    TimedOut,
}

/// Waits for `child` to exit, its output to pass its cap (seen on `stdout`), or `deadline`.
fn wait_until(child: &mut Child, stdout: &Pending, deadline: Deadline) -> Waited {
    loop {
        if stdout.over_limit() {
            return Waited::TooMuch;
        }
        match child.try_wait() {
            Ok(Some(status)) => return Waited::Exited(status),
            Ok(None) => {}
            Err(_) => return Waited::TimedOut,
        }
        if Instant::now() >= deadline.at {
            return Waited::TimedOut;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The output of a pipe being read on a thread of its own, up to a limit (one byte more tells that
/// there was more).
struct Pending {
    receiver: std::sync::mpsc::Receiver<Vec<u8>>,
    over: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Pending {
    fn over_limit(&self) -> bool {
        self.over.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn recv_timeout(&self, timeout: Duration) -> Option<Vec<u8>> {
        self.receiver.recv_timeout(timeout).ok()
    }
}

fn bounded_reader(pipe: Option<impl Read + Send + 'static>, limit: u64) -> Pending {
    let (sender, receiver) = std::sync::mpsc::channel();
    let over = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    if let Some(pipe) = pipe {
        let flag = over.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.take(limit + 1).read_to_end(&mut bytes);
            if bytes.len() as u64 > limit {
                flag.store(true, std::sync::atomic::Ordering::SeqCst);
            }
            let _ = sender.send(bytes);
        });
    }
    Pending { receiver, over }
}

/// A plugin's process group (when it leads one), recorded while it runs so that [`stop_plugins`] can
/// end it.
struct Group {
    id: u32,
    leads: bool,
}

impl Group {
    fn new(id: u32, leads: bool) -> Group {
        if leads {
            PLUGINS.lock().unwrap_or_else(PoisonError::into_inner).push(id);
        }
        Group { id, leads }
    }

    /// Kills the plugin and everything it started.
    fn kill(&self, child: &mut Child) {
        if self.leads {
            kill_group(self.id);
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        PLUGINS.lock().unwrap_or_else(PoisonError::into_inner).retain(|id| *id != self.id);
    }
}

/// Sends SIGKILL to the process group `id` (the plugin was made its leader). Without `unsafe` there is
/// no `killpg` in Rust's standard library, so `kill(1)` does it, or the shell's own `kill` where there
/// is no such program.
fn kill_group(id: u32) {
    #[cfg(unix)]
    {
        let quiet = |mut command: Command| command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok();
        let group = format!("-{id}");
        let mut program = Command::new("kill");
        program.args(["-s", "KILL", "--", &group]);
        if !quiet(program) {
            let mut shell = Command::new("sh");
            shell.args(["-c", &format!("kill -s KILL -- {group}")]);
            quiet(shell);
        }
    }
}

/// Kills every exec plugin still running, with what it started: for a process about to exit (the
/// language server, when the editor ends it), whose plugins would otherwise outlive it.
pub fn stop_plugins() {
    let running = std::mem::take(&mut *PLUGINS.lock().unwrap_or_else(PoisonError::into_inner));
    for id in running {
        kill_group(id);
    }
}

/// Standard base64, as kubeconfig's `*-data` fields hold PEM.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() { ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
        }
    }
    out
}

/// Every CRD of the cluster, page by page, each page and all of them within their byte limits.
async fn list(kubeconfig: Kubeconfig, options: &KubeConfigOptions) -> Result<Vec<Value>, String> {
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, options).await.map_err(|e| error_chain(&e))?;
    config.connect_timeout = Some(Duration::from_secs(10));
    config.read_timeout = Some(Duration::from_secs(60));
    let client = kube::Client::try_from(config).map_err(|e| error_chain(&e))?;
    let mut items = Vec::new();
    let mut token: Option<String> = None;
    let mut pages = 0;
    let mut total = 0u64;
    loop {
        let mut uri = format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions?limit={PAGE_SIZE}");
        if let Some(token) = &token {
            uri.push_str("&continue=");
            uri.push_str(&percent_encode(token));
        }
        let request = http::Request::get(uri).body(kube::client::Body::empty()).map_err(|e| e.to_string())?;
        let response = client.send(request).await.map_err(|e| error_chain(&e))?;
        let status = response.status();
        let limit = MAX_PAGE_BYTES.min(MAX_LIST_BYTES - total);
        let (body, complete) = read_body(response.into_body(), if status.is_success() { limit } else { MAX_PLUGIN_ERROR }).await?;
        if !status.is_success() {
            return Err(api_error(status.as_u16(), &body));
        }
        if !complete {
            return Err(if limit < MAX_PAGE_BYTES {
                format!("the CRD list is larger than {} MiB in all; not read", MAX_LIST_BYTES / (1024 * 1024))
            } else {
                format!("a page of the CRD list is larger than {} MiB; not read", MAX_PAGE_BYTES / (1024 * 1024))
            });
        }
        total += body.len() as u64;
        let mut page: Value = serde_json::from_slice(&body).map_err(|e| format!("the CRD list is not JSON: {e}"))?;
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

/// At most `limit` bytes of `body`, and whether that was all of it.
async fn read_body(mut body: kube::client::Body, limit: u64) -> Result<(Vec<u8>, bool), String> {
    use http_body_util::BodyExt;
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| error_chain(&e))?;
        if let Ok(data) = frame.into_data() {
            if (bytes.len() + data.len()) as u64 > limit {
                return Ok((bytes, false));
            }
            bytes.extend_from_slice(&data);
        }
    }
    Ok((bytes, true))
}

/// The API server's refusal in a sentence: its `Status` message, else the start of what it said.
fn api_error(code: u16, body: &[u8]) -> String {
    let status: Option<Value> = serde_json::from_slice(body).ok();
    let message = status.as_ref().and_then(|s| s.get("message")).and_then(Value::as_str).map(str::to_string);
    let reason = status.as_ref().and_then(|s| s.get("reason")).and_then(Value::as_str).filter(|r| !r.is_empty());
    let said = message.unwrap_or_else(|| String::from_utf8_lossy(&body[..body.len().min(200)]).trim().to_string());
    match reason {
        Some(reason) if !said.contains(reason) => format!("the API server answered HTTP {code} ({reason}): {said}"),
        _ => format!("the API server answered HTTP {code}: {said}"),
    }
}

/// The listed CRDs as a YAML stream of JSON documents (JSON is YAML), each with the `apiVersion` and
/// `kind` a list leaves out, without server bookkeeping (managed fields, the last applied copy, the
/// status but for `status.storedVersions`, which says the versions objects may be stored in: a CRD
/// of the workspace compared with the cluster's must not drop them).
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
        if let Some(stored) = item.pointer("/status/storedVersions").filter(|v| v.is_array()) {
            crd.insert("status".into(), serde_json::json!({ "storedVersions": stored }));
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
            assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
            let started = Instant::now();
            let err = fetch(&options("ca.fifo", files), &Cache::at(dir.join("empty")), Network::Refresh).unwrap_err().to_string();
            assert!(err.contains("cannot read the certificate authority") && err.contains("a FIFO"), "{err}");
            assert!(started.elapsed() < Duration::from_secs(5));
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
        let (server, seen) = api_server("from-plugin");
        let runs = dir.join("runs");
        let credential = r#"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-plugin"}}"#;
        let script = format!("echo run >> {:?}\nsleep 1\necho '{credential}'\n", runs.display().to_string());
        let options = exec_kubeconfig(&dir, &server, &script);
        let cache = Cache::at(dir.join("cache"));
        let results: Vec<Result<Fetched, SourceError>> = std::thread::scope(|scope| {
            let calls: Vec<_> = (0..3).map(|_| scope.spawn(|| fetch(&options, &cache, Network::Refresh))).collect();
            calls.into_iter().map(|c| c.join().unwrap()).collect()
        });
        for result in &results {
            assert!(result.as_ref().is_ok_and(|f| f.text.contains("widgets.b.example.com")), "{result:?}");
        }
        assert_eq!(std::fs::read_to_string(&runs).unwrap(), "run\n");
        assert_eq!(seen.lock().unwrap().len(), 2);
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
        let options =
            ClusterOptions { kubeconfig: Some(kubeconfig(&dir, &server, "    token: s3cret\n")), context: None, interactive: false };
        let blocked = dir.join("cache");
        std::fs::write(&blocked, "a file where the cache directory would be").unwrap();
        let fetched = fetch(&options, &Cache::at(&blocked), Network::Refresh).unwrap();
        assert!(fetched.downloaded && fetched.text.contains("widgets.b.example.com"));
        let warning = fetched.not_cached_warning().unwrap().to_string();
        assert!(warning.starts_with("cluster test was fetched but not cached: cannot write the cache "), "{warning}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
