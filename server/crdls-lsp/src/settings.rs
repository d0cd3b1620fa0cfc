//! Settings in layers. The base is the defaults, then `crdls.toml` from the first workspace root, then
//! the initialization options; the client's current settings go on top of the base afresh at every
//! change, so a setting the user removes falls back to the project's value instead of lingering.

use crdls_workspace::Config;
use tower_lsp::lsp_types::{ConfigurationItem, MessageType};

use crate::session::{read, write, Backend};

impl Backend {
    /// Reads `crdls.toml` from the first workspace root, then the initialization options on top: the
    /// base settings, which are also the settings in force until the client sends its own.
    pub(crate) async fn load_config(&self, init_options: Option<serde_json::Value>) {
        let mut config = Config::default();
        let root = read(&self.state.roots).first().cloned();
        if let Some(root) = root {
            if let Ok(text) = crdls_workspace::files::read_text(&root.join(crdls_workspace::CONFIG_FILE)) {
                if let Err(e) = config.merge_toml(&text) {
                    self.log(MessageType::WARNING, e).await;
                }
            }
        }
        if let Some(options) = init_options {
            if let Err(e) = config.merge_json(&options) {
                self.log(MessageType::WARNING, e).await;
            }
        }
        *write(&self.state.base) = config.clone();
        *write(&self.state.config) = config;
    }

    /// Asks the client for the `crdls` section (when it can be asked): its current settings.
    pub(crate) async fn pull_configuration(&self) -> Option<Vec<serde_json::Value>> {
        if !read(&self.state.flags).configuration {
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
        let mut config = read(&self.state.base).clone();
        for layer in layers {
            if let Err(e) = config.merge_json(layer) {
                self.log(MessageType::WARNING, e).await;
            }
        }
        let mut current = write(&self.state.config);
        let paths_changed = current.crd_paths != config.crd_paths || current.cluster != config.cluster;
        *current = config;
        paths_changed
    }
}
