//! Mutating admission webhooks a workspace installs (`MutatingWebhookConfiguration` objects), read
//! for one question: may a webhook change an object before the API server validates it? The API server
//! runs mutating admission before it checks a custom resource against its schema, so a field a
//! defaulting webhook writes need not be in the object as written.
//!
//! A webhook matches a create of a resource by its `rules` (`apiGroups`, `apiVersions`, `resources`,
//! `operations`, `scope`, with `*` where the API allows it). A webhook written without any rules is a
//! webhook whose process fills them in when it starts (knative's `webhook.operator.tekton.dev`, Tekton's
//! and Knative's own): it is taken to cover the resources of the CRDs its workspace defines, since such a
//! process registers only its project's types. Nothing here runs or fetches anything: the
//! configurations are read as YAML, like any other object.

use crdls_yaml::Node;

/// One webhook of a `MutatingWebhookConfiguration`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MutatingWebhook {
    /// The configuration's `metadata.name` (empty when it has none).
    pub configuration: String,
    /// The webhook's `name`.
    pub name: String,
    /// Its rules, or `None` when it is written without any: its process fills them in at run time.
    pub rules: Option<Vec<WebhookRule>>,
}

/// One entry of a webhook's `rules`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WebhookRule {
    /// `operations` (`CREATE`, `UPDATE`, `DELETE`, `CONNECT`, `*`).
    pub operations: Vec<String>,
    /// `apiGroups` (`""` for the core group, `*`).
    pub api_groups: Vec<String>,
    /// `apiVersions` (`*`).
    pub api_versions: Vec<String>,
    /// `resources`: `widgets`, `widgets/status`, `*`, `*/*`, `*/status`.
    pub resources: Vec<String>,
    /// `scope`: `Namespaced`, `Cluster` or `*` (the default).
    pub scope: Option<String>,
}

/// The resource an object is created as: its group, version, plural, and whether it is namespaced.
#[derive(Clone, Copy, Debug)]
pub struct CreatedResource<'a> {
    /// The API group (`""` for the core group).
    pub group: &'a str,
    /// The version.
    pub version: &'a str,
    /// The resource's plural name (`widgets`).
    pub resource: &'a str,
    /// Whether the resource is namespaced.
    pub namespaced: bool,
}

/// How a webhook came to match a resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WebhookMatch {
    /// One of its rules names the resource's create (possibly through `*`).
    Rule,
    /// It has no rules: its process fills them in for its project's own types.
    RuntimeRules,
}

impl WebhookRule {
    /// Whether this rule covers a create of `resource` (the resource itself, not a subresource).
    pub fn covers_create(&self, resource: &CreatedResource<'_>) -> bool {
        let any = |list: &[String], value: &str| list.iter().any(|v| v == "*" || v == value);
        let scope = match self.scope.as_deref() {
            None | Some("*") => true,
            Some("Namespaced") => resource.namespaced,
            Some("Cluster") => !resource.namespaced,
            Some(_) => false,
        };
        any(&self.operations, "CREATE")
            && any(&self.api_groups, resource.group)
            && any(&self.api_versions, resource.version)
            // `*/*` covers every resource and subresource; `*/status` or `widgets/*` only subresources.
            && self.resources.iter().any(|r| r == "*" || r == "*/*" || r == resource.resource)
            && scope
    }
}

impl MutatingWebhook {
    /// Whether this webhook may change a create of `resource`; `own_type` says whether the resource's
    /// CRD is defined in the workspace, which a webhook without rules needs.
    pub fn matches(&self, resource: &CreatedResource<'_>, own_type: bool) -> Option<WebhookMatch> {
        match &self.rules {
            None => own_type.then_some(WebhookMatch::RuntimeRules),
            Some(rules) => rules.iter().any(|r| r.covers_create(resource)).then_some(WebhookMatch::Rule),
        }
    }
}

/// The webhooks of a `MutatingWebhookConfiguration` at `root` (`admissionregistration.k8s.io/v1` or
/// `v1beta1`), or of a `List` of them; none for any other object. `literal` says whether a node is
/// text as written (a chart template's actions are not): a webhook whose rules, or whose item when it
/// writes no rules, hold text that is not literal is left out, since what it matches cannot be known.
pub fn mutating_webhooks(root: &Node, literal: &dyn Fn(&Node) -> bool) -> Vec<MutatingWebhook> {
    let mut out = Vec::new();
    collect(root, literal, 0, &mut out);
    out
}

/// How deep `List`s are followed.
const MAX_LIST_DEPTH: usize = 2;

fn collect(root: &Node, literal: &dyn Fn(&Node) -> bool, depth: usize, out: &mut Vec<MutatingWebhook>) {
    let api_version = root.get_str("apiVersion").unwrap_or_default();
    match root.get_str("kind") {
        Some("List") if depth < MAX_LIST_DEPTH => {
            for item in root.get("items").and_then(Node::as_seq).unwrap_or_default() {
                collect(item, literal, depth + 1, out);
            }
        }
        Some("MutatingWebhookConfiguration") if api_version.starts_with("admissionregistration.k8s.io/") => {
            let configuration = root.get("metadata").and_then(|m| m.get_str("name")).unwrap_or_default().to_string();
            for webhook in root.get("webhooks").and_then(Node::as_seq).unwrap_or_default() {
                let Some(name) = webhook
                    .get("name")
                    .filter(|n| literal(n))
                    .and_then(Node::as_str)
                    .or(webhook.get("name").map(|_| "(its name is computed)"))
                else {
                    continue;
                };
                let rules = match webhook.get("rules") {
                    Some(rules) if !all_literal(rules, literal) => continue,
                    Some(rules) => match rules.as_seq() {
                        Some([]) => None,
                        Some(items) => Some(items.iter().map(rule).collect()),
                        // A `rules` that is not a list (null, a scalar) is no rule at all.
                        None if rules.as_map().is_none() && rules.as_str().is_none_or(str::is_empty) => None,
                        None => continue,
                    },
                    None if !all_literal(webhook, literal) => continue,
                    None => None,
                };
                out.push(MutatingWebhook { configuration: configuration.clone(), name: name.to_string(), rules });
            }
        }
        _ => {}
    }
}

fn rule(node: &Node) -> WebhookRule {
    let list = |key: &str| -> Vec<String> {
        node.get(key).and_then(Node::as_seq).unwrap_or_default().iter().filter_map(|n| n.as_str().map(str::to_string)).collect()
    };
    WebhookRule {
        operations: list("operations"),
        api_groups: list("apiGroups"),
        api_versions: list("apiVersions"),
        resources: list("resources"),
        scope: node.get_str("scope").map(str::to_string),
    }
}

/// Whether `node` and everything below it is literal text.
fn all_literal(node: &Node, literal: &dyn Fn(&Node) -> bool) -> bool {
    if !literal(node) {
        return false;
    }
    match &node.value {
        crdls_yaml::Value::Map(entries) => entries.iter().all(|e| all_literal(&e.value, literal)),
        crdls_yaml::Value::Seq(items) => items.iter().all(|n| all_literal(n, literal)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn webhooks(text: &str) -> Vec<MutatingWebhook> {
        let stream = crdls_yaml::parse(text);
        stream.documents.iter().filter_map(|d| d.root.as_ref()).flat_map(|r| mutating_webhooks(r, &|_| true)).collect()
    }

    const WIDGETS: CreatedResource<'static> =
        CreatedResource { group: "demo.crdls.dev", version: "v1", resource: "widgets", namespaced: true };

    fn configuration(rules: &str) -> String {
        format!(
            "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: defaults\nwebhooks:\n- name: widgets.demo.crdls.dev\n  admissionReviewVersions: [v1]\n  sideEffects: None\n  clientConfig:\n    service: {{name: webhook, namespace: system}}\n{rules}"
        )
    }

    fn matches(rules: &str, own: bool) -> Option<WebhookMatch> {
        let found = webhooks(&configuration(rules));
        assert_eq!(found.len(), 1, "{rules}");
        found[0].matches(&WIDGETS, own)
    }

    #[test]
    fn rules_match_a_create_as_the_api_server_matches_it() {
        let rule = |groups: &str, versions: &str, resources: &str, operations: &str, scope: &str| {
            format!("  rules:\n  - apiGroups: {groups}\n    apiVersions: {versions}\n    resources: {resources}\n    operations: {operations}\n{scope}")
        };
        let yes = Some(WebhookMatch::Rule);
        assert_eq!(matches(&rule("[demo.crdls.dev]", "[v1]", "[widgets]", "[CREATE, UPDATE]", ""), false), yes);
        assert_eq!(matches(&rule("['*']", "['*']", "['*']", "['*']", ""), false), yes);
        assert_eq!(matches(&rule("['*']", "['*']", "['*/*']", "[CREATE]", "    scope: Namespaced\n"), false), yes);
        // Not a create, another group, version or resource, a subresource only, the other scope.
        assert_eq!(matches(&rule("[demo.crdls.dev]", "[v1]", "[widgets]", "[UPDATE]", ""), true), None);
        assert_eq!(matches(&rule("[other.dev]", "[v1]", "[widgets]", "[CREATE]", ""), true), None);
        assert_eq!(matches(&rule("[demo.crdls.dev]", "[v1beta1]", "[widgets]", "[CREATE]", ""), true), None);
        assert_eq!(matches(&rule("[demo.crdls.dev]", "[v1]", "[gadgets]", "[CREATE]", ""), true), None);
        assert_eq!(matches(&rule("[demo.crdls.dev]", "[v1]", "[widgets/status, '*/scale']", "[CREATE]", ""), true), None);
        assert_eq!(matches(&rule("[demo.crdls.dev]", "[v1]", "[widgets]", "[CREATE]", "    scope: Cluster\n"), true), None);
        // A rule with a list left out matches nothing, as the API server would refuse it.
        assert_eq!(matches("  rules:\n  - apiGroups: ['*']\n    resources: ['*']\n    operations: ['*']\n", true), None);
    }

    #[test]
    fn a_webhook_without_rules_covers_the_workspaces_own_types_only() {
        assert_eq!(matches("", true), Some(WebhookMatch::RuntimeRules));
        assert_eq!(matches("  rules: []\n", true), Some(WebhookMatch::RuntimeRules));
        assert_eq!(matches("", false), None);
    }

    #[test]
    fn only_mutating_configurations_count() {
        let validating = configuration("").replace("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration");
        assert!(webhooks(&validating).is_empty());
        let list = format!("apiVersion: v1\nkind: List\nitems:\n- {}", configuration("").replace('\n', "\n  "));
        assert_eq!(webhooks(&list).len(), 1);
        assert_eq!(webhooks(&configuration(""))[0].configuration, "defaults");
    }

    #[test]
    fn rules_that_are_not_literal_text_match_nothing() {
        let text = configuration("  rules:\n  - apiGroups: ['*']\n    apiVersions: ['*']\n    resources: ['*']\n    operations: ['*']\n");
        let stream = crdls_yaml::parse(&text);
        let root = stream.documents[0].root.as_ref().unwrap();
        assert_eq!(mutating_webhooks(root, &|_| true).len(), 1);
        assert!(mutating_webhooks(root, &|n| n.as_str() != Some("*")).is_empty());
    }
}
