//! What checking one document means in the editor: the file's role decides how it is read, the
//! buffer's own CRDs count before the shared index has them, the file at the configured git revision
//! is the old object, and then the one `check_file` of `crdls check` runs, on a blocking thread.

use std::sync::Arc;

use crdls_crd::{is_crd, Crd, SourceId};
use crdls_diagnostics::Diagnostic;
use crdls_workspace::check::{chart_hint, check_file, FileContext};
use crdls_workspace::FileRole;
use tower_lsp::lsp_types::Url;

use crate::session::{role_of, Backend};

impl Backend {
    /// Parses and checks a text on a blocking thread: the diagnostics and the CRDs the text declares.
    pub(crate) async fn analyze(&self, uri: &Url, text: String) -> Option<(Vec<Diagnostic>, Vec<Crd>)> {
        let state = self.state.clone();
        let source: SourceId = Arc::from(uri.as_str());
        self.blocking("checking a document", move || {
            let role = role_of(&state, &source);
            let config = state.session().config.clone();
            let mut options = config.check_options();
            // The file's version at the configured git revision is what this edit updates.
            let path = Url::parse(&source).ok().and_then(|u| u.to_file_path().ok());
            if let (Some(rev), Some(path)) = (config.git_revision(), path.as_deref()) {
                if let Some(old_text) = state.git.text(path, rev) {
                    let mut old = crdls_check::OldObjects::new();
                    old.add_stream(&crdls_yaml::parse(&old_text));
                    options.old = Some(Arc::new(old));
                    options.objects = Some(Arc::new(crate::objects::WorkspaceObjects::new(state.clone())));
                }
            }
            // The one hint of the open template's chart (the command line gives one per chart).
            let hint = match &role {
                FileRole::HelmTemplate { chart_dir, chart_name } => Some(chart_hint(chart_name, &chart_dir.to_string_lossy(), None)),
                _ => None,
            };
            let mut crds = Vec::new();
            let workspace = crate::session::workspace_of(&state);
            let place = path.as_deref().map(|path| (path, &workspace));
            let cx = FileContext { role: &role, config: &config, options: &options, place };
            let checked = check_file(&text, &cx, hint, |stream, mode| {
                // Of a chart template, only the CRDs it writes in literal text are indexed. A CRD being
                // edited that has a syntax error for now keeps what the buffer last indexed, so the
                // resources that use it do not lose their schema at every keystroke.
                let broken_crd =
                    stream.documents.iter().any(|d| d.has_syntax_error && d.root.as_ref().is_some_and(|r| is_crd(r).is_some()));
                crds = match mode {
                    crdls_check::FileMode::Template { .. } => crdls_workspace::template_crds(&text),
                    _ if broken_crd => state.session().index.crds_of(&source).iter().map(|c| (**c).clone()).collect(),
                    _ => stream.documents.iter().flat_map(Crd::from_document).collect(),
                };
                // An open kustomization outputs the CRDs it patches, as the scan read them.
                if let Some(path) = path.as_deref() {
                    crds.extend(crdls_workspace::resolver::kustomization_crds(path, &text, &workspace));
                }
                // A buffer's own CRDs count when checking it, before the shared index is updated. Of
                // a CRD defined more than once, the document's objects use the nearest definition that
                // serves their version.
                let mut index = state.session().index.seen_from(&source);
                if !crds.is_empty() || !index.crds_of(&source).is_empty() {
                    let origin = index.origin_of(&source);
                    index.set_source_from(source.clone(), origin, crds.clone());
                }
                index
            });
            (checked.diagnostics, crds)
        })
        .await
    }
}
