//! Exec credential plugins, run as kubectl runs them but within the listing's deadline: in a process
//! group of their own that is killed at the deadline or when the process exits (`stop_plugins`), their
//! output capped, and the credential they print put in the kubeconfig so that kube-rs runs nothing.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use kube::config::{ExecAuthCluster, ExecConfig, ExecInteractiveMode, Kubeconfig};
use serde_json::{Map, Value};

use super::{base64, error_chain, MAX_PLUGIN_ERROR};

/// The most an exec credential plugin may print (a credential is a few KiB).
const MAX_PLUGIN_OUTPUT: u64 = 1024 * 1024;

/// The process groups of the exec plugins running now.
static PLUGINS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// If the user of `context` has an exec credential plugin, runs it (see [`run_plugin`]) and replaces
/// the plugin in `kubeconfig` by the credential it printed, so kube-rs never runs it.
pub(super) fn run_exec_plugin(kubeconfig: &mut Kubeconfig, context: &str, interactive: bool, deadline: Deadline) -> Result<(), String> {
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
pub(super) struct Deadline {
    pub(super) at: Instant,
    pub(super) total: Duration,
}

impl Deadline {
    pub(super) fn left(self) -> Duration {
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
