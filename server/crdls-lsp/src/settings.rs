//! Settings in layers. The base is the defaults, then `crdls.toml` from the first workspace root, then
//! the initialization options; the client's current settings go on top of the base afresh at every
//! change, so a setting the user removes falls back to the project's value instead of lingering.
//!
//! Trust comes from the client alone, as the initialization option `trustedWorkspace` (VS Code sets it
//! from its workspace trust; other editors' setups say how): until the user trusts the workspace, what
//! `crdls.toml` asks for that would run a program, read a credential or touch the network is withheld,
//! and the user is told once. The client's own settings are the user's, and always apply.

use crdls_workspace::files::ReadError;
use crdls_workspace::{trust, Config, Trust, CONFIG_FILE};
use tower_lsp::lsp_types::{ConfigurationItem, MessageType};

use crate::session::Backend;

/// The initialization option that carries the editor's workspace trust.
const TRUST_OPTION: &str = "trustedWorkspace";

/// How the user trusts a workspace in the editor, for the message that says what was withheld.
const HOW_TO_TRUST: &str =
    "trust the workspace in the editor to use them: VS Code's workspace trust, or the initialization option trustedWorkspace = true";

/// Takes the trust out of a settings value: `Some(trusted)` when it held the key.
fn take_trust(value: &mut serde_json::Value) -> Option<serde_json::Value> {
    value.as_object_mut()?.remove(TRUST_OPTION)
}

impl Backend {
    /// Reads the trust and the other initialization options, and `crdls.toml` from the first
    /// workspace root under them: the base settings, which are also the settings in force until the
    /// client sends its own.
    pub(crate) async fn load_config(&self, init_options: Option<serde_json::Value>) {
        let mut options = init_options.unwrap_or(serde_json::Value::Null);
        let trust = match take_trust(&mut options) {
            Some(serde_json::Value::Bool(true)) => Trust::Trusted,
            Some(serde_json::Value::Bool(false)) | None => Trust::Restricted,
            Some(other) => {
                self.log(MessageType::WARNING, format!("{TRUST_OPTION} must be true or false, not {other}; the workspace is not trusted"))
                    .await;
                Trust::Restricted
            }
        };
        let mut config = Config { trust, ..Config::default() };
        let mut withheld = None;
        let root = self.state.session().roots.first().cloned();
        if let Some(root) = root {
            match crdls_workspace::files::read_text(&root.join(CONFIG_FILE)) {
                Ok(text) => match config.merge_workspace_toml(&text) {
                    Ok(asked) if !asked.is_empty() => withheld = Some(trust::describe(&asked, HOW_TO_TRUST)),
                    Ok(_) => {}
                    Err(e) => self.log(MessageType::WARNING, e.to_string()).await,
                },
                // No crdls.toml: the defaults.
                Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {}
                // One that is there but cannot be read (a directory, a FIFO, too large, not UTF-8) is
                // said, as `crdls check` says it, rather than silently replaced by the defaults.
                Err(e) => self.log(MessageType::WARNING, format!("cannot read {CONFIG_FILE}: {e}; its settings are not used")).await,
            }
        }
        if let Err(e) = config.merge_json(&options) {
            self.log(MessageType::WARNING, e.to_string()).await;
        }
        self.state.update(|session| {
            session.base = config.clone();
            session.config = config;
            session.withheld = withheld;
        });
    }

    /// Says once, when the session starts, what `crdls.toml` asked for and was withheld.
    pub(crate) async fn report_withheld(&self) {
        let message = self.state.update(|session| session.withheld.take());
        if let Some(message) = message {
            let message = format!("crdls: {message}");
            self.log(MessageType::WARNING, message.clone()).await;
            self.client.show_message(MessageType::WARNING, message).await;
        }
    }

    /// Asks the client for the `crdls` section (when it can be asked): its current settings.
    pub(crate) async fn pull_configuration(&self) -> Option<Vec<serde_json::Value>> {
        if !self.state.session().flags.configuration {
            return None;
        }
        let items = vec![ConfigurationItem { scope_uri: None, section: Some("crdls".into()) }];
        match self.client.configuration(items).await {
            Ok(values) => Some(values),
            Err(e) => {
                self.log(MessageType::WARNING, format!("workspace/configuration failed: {e}")).await;
                None
            }
        }
    }

    /// Puts the client's settings on top of the base settings, replacing the client's previous ones.
    /// Returns whether the CRD paths or the cluster changed (the workspace must then be scanned again).
    pub(crate) async fn apply_client_settings(&self, layers: &[serde_json::Value]) -> bool {
        let mut config = self.state.session().base.clone();
        for layer in layers {
            let mut layer = layer.clone();
            let section = match layer.get_mut("crdls") {
                Some(section) => section,
                None => &mut layer,
            };
            if take_trust(section).is_some() {
                let message = format!(
                    "{TRUST_OPTION} is read only from the initialization options, never from settings a workspace can hold; ignored"
                );
                self.log(MessageType::WARNING, message).await;
            }
            if let Err(e) = config.merge_json(&layer) {
                self.log(MessageType::WARNING, e.to_string()).await;
            }
        }
        self.state.update(|session| {
            let current = &session.config;
            // What the workspace scan reads: the CRD paths, the cluster, and whether test material is walked.
            let paths_changed = current.crd_paths != config.crd_paths
                || current.cluster != config.cluster
                || current.include_testdata != config.include_testdata;
            session.config = config;
            paths_changed
        })
    }
}
