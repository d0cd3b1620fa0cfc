//! The registry of diagnostic codes: every code crdls reports, with its default severity, a one-line
//! summary, what else is true of it, and its documentation (`explanations.md`: what triggers it, an
//! example, how to fix it). Code that reports a diagnostic names its code through these constants, so
//! a misspelt code is a compile error; `crdls explain`, the settings' `[severity]` table, SARIF rules,
//! the file modes (`crdls_check::FileMode`) and the documentation site all read this one table.
//!
//! A row is `CONSTANT = "family/name", DefaultSeverity, "Summary.";`, followed, before the `;`, by the
//! columns that hold for the code, each `, column`:
//! - `also(Severity)`: it is also reported with that severity, in the cases its documentation names
//!   (`Diagnostic::new` checks, in debug builds, that a code is reported only with a severity its row
//!   allows);
//! - `completeness`: it is about an object's completeness, which a partial object (a patch, an
//!   assertion, a test step that merges into an existing object) does not have to meet;
//! - `template`: a literal part of a Helm template can earn it whatever the template's actions produce.

use crate::Severity;

/// A diagnostic code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code {
    /// The stable name users search for and configure (`schema/required`).
    pub name: &'static str,
    /// The severity it is reported with unless a setting or the situation says otherwise (unknown
    /// fields are errors with `--strict`; `--fail-unchecked` makes unvalidated objects errors).
    pub severity: Severity,
    /// One line saying what it reports.
    pub summary: &'static str,
    /// The other severity it is reported with in some cases (its documentation says which), if any.
    pub also: Option<Severity>,
    /// Whether it is about an object's completeness (a required field, a rule that may test which
    /// fields are present), which a partial object does not have to meet.
    pub completeness: bool,
    /// Whether a literal part of a template can earn it whatever the template's actions produce (a
    /// misspelled key, a value of the wrong type, an apiVersion that does not exist).
    pub template: bool,
}

impl Code {
    const fn new(name: &'static str, severity: Severity, summary: &'static str) -> Code {
        Code { name, severity, summary, also: None, completeness: false, template: false }
    }

    const fn also(self, severity: Severity) -> Code {
        Code { also: Some(severity), ..self }
    }

    const fn completeness(self) -> Code {
        Code { completeness: true, ..self }
    }

    const fn template(self) -> Code {
        Code { template: true, ..self }
    }

    /// Whether the code may be reported with `severity`: its default, or the one its row adds.
    pub fn allows(&self, severity: Severity) -> bool {
        self.severity == severity || self.also == Some(severity)
    }
}

macro_rules! codes {
    ($( $ident:ident = $name:literal, $severity:ident, $summary:literal $(, $column:ident $(($arg:ident))?)* ; )*) => {
        $(
            #[doc = $summary]
            pub const $ident: &str = $name;
        )*
        /// Every code, grouped by family.
        pub const ALL: &[Code] = &[ $( Code::new($name, Severity::$severity, $summary) $( .$column($(Severity::$arg)?) )* ),* ];
    };
}

codes! {
    // YAML.
    YAML_SYNTAX = "yaml/syntax", Error, "The YAML cannot be parsed.";
    YAML_DUPLICATE_KEY = "yaml/duplicate-key", Error, "A mapping holds the same key twice.";
    YAML_COMPLEX_KEY = "yaml/complex-key", Error, "A mapping or sequence is used as a key, which JSON cannot hold.";
    YAML_EXCESSIVE_ALIASING = "yaml/excessive-aliasing", Error, "Aliases expand to more nodes than the API server decodes.";
    YAML_TOO_DEEP = "yaml/too-deep", Error, "Collections are nested deeper than crdls reads.";
    // apiVersion and kind.
    RESOURCE_UNKNOWN_KIND = "resource/unknown-kind", Error, "The kind misspells a kind its group declares.", template;
    RESOURCE_UNDECLARED_KIND = "resource/undeclared-kind", Warning, "No known CRD of the group declares the kind, so the object is not validated.", template;
    RESOURCE_UNKNOWN_VERSION = "resource/unknown-version", Error, "The CRD does not declare this version of the kind.", also(Warning), template;
    RESOURCE_VERSION_NOT_SERVED = "resource/version-not-served", Error, "The CRD declares this version but does not serve it.", template;
    RESOURCE_DEPRECATED_VERSION = "resource/deprecated-version", Warning, "The version is deprecated; the API server warns when it is used.", template;
    RESOURCE_API_NOT_SERVED = "resource/api-not-served", Error, "The Kubernetes release checked against does not serve this version of a built-in kind.", also(Warning), template;
    RESOURCE_DEPRECATED_API = "resource/deprecated-api", Warning, "A later Kubernetes release stops serving this version of a built-in kind.", template;
    RESOURCE_NO_CRD = "resource/no-crd", Information, "No known CRD serves the object's group, so it is not validated.", template;
    RESOURCE_STATUS_IGNORED = "resource/status-ignored", Information, "The status subresource makes the API server ignore the status written here.", template;
    RESOURCE_NO_STATUS_SUBRESOURCE = "resource/no-status-subresource", Error, "A status update to a CRD version without the status subresource.";
    // Custom resources against their schema.
    SCHEMA_UNKNOWN_FIELD = "schema/unknown-field", Warning, "A field the schema does not know; the API server prunes it (rejects it with strict validation).", also(Error), template;
    SCHEMA_TYPE = "schema/type", Error, "A value of the wrong type.", template;
    SCHEMA_REQUIRED = "schema/required", Error, "A required field is missing.", also(Warning), completeness;
    SCHEMA_ENUM = "schema/enum", Error, "A value outside the field's enum.", template;
    SCHEMA_PATTERN = "schema/pattern", Error, "A string that does not match the field's pattern.", template;
    SCHEMA_FORMAT = "schema/format", Error, "A string that is not valid in the field's format.", template;
    SCHEMA_MAXIMUM = "schema/maximum", Error, "A number above the field's maximum.", template;
    SCHEMA_MINIMUM = "schema/minimum", Error, "A number below the field's minimum.", template;
    SCHEMA_MULTIPLE_OF = "schema/multiple-of", Error, "A number that is not a multiple of the field's multipleOf.", template;
    SCHEMA_MAX_LENGTH = "schema/max-length", Error, "A string longer than the field's maxLength.", template;
    SCHEMA_MIN_LENGTH = "schema/min-length", Error, "A string shorter than the field's minLength.", template;
    SCHEMA_MAX_ITEMS = "schema/max-items", Error, "A list with more items than the field's maxItems.";
    SCHEMA_MIN_ITEMS = "schema/min-items", Error, "A list with fewer items than the field's minItems.", completeness;
    SCHEMA_MAX_PROPERTIES = "schema/max-properties", Error, "An object with more properties than the field's maxProperties.";
    SCHEMA_MIN_PROPERTIES = "schema/min-properties", Error, "An object with fewer properties than the field's minProperties.", completeness;
    SCHEMA_ALL_OF = "schema/all-of", Error, "The value fails a schema of the field's allOf.", completeness;
    SCHEMA_ANY_OF = "schema/any-of", Error, "The value matches none of the field's anyOf schemas.", completeness;
    SCHEMA_ONE_OF = "schema/one-of", Error, "The value matches none, or more than one, of the field's oneOf schemas.", completeness;
    SCHEMA_NOT = "schema/not", Error, "The value matches the schema the field's not forbids.", completeness;
    SCHEMA_LIST_SET_DUPLICATE = "schema/list-set-duplicate", Error, "A list of type set holds the same item twice.";
    SCHEMA_LIST_MAP_DUPLICATE = "schema/list-map-duplicate", Error, "A list of type map holds two items with the same keys.", completeness;
    SCHEMA_LIST_MAP_ITEM = "schema/list-map-item", Error, "An item of a list of type map is not an object.", completeness;
    SCHEMA_EMBEDDED_RESOURCE = "schema/embedded-resource", Error, "An embedded resource lacks its apiVersion or kind.", completeness;
    // ObjectMeta.
    METADATA_NAME = "metadata/name", Error, "The object's name or generateName is not valid for its kind.", template;
    METADATA_NAME_REQUIRED = "metadata/name-required", Error, "The object has neither metadata.name nor metadata.generateName.", completeness;
    METADATA_NAMESPACE = "metadata/namespace", Error, "The namespace is not a valid DNS label.", template;
    METADATA_LABEL_KEY = "metadata/label-key", Error, "A label key is not a valid qualified name.", template;
    METADATA_LABEL_VALUE = "metadata/label-value", Error, "A label value is not valid.", template;
    METADATA_ANNOTATION_KEY = "metadata/annotation-key", Error, "An annotation key is not a valid qualified name.", template;
    METADATA_ANNOTATIONS_SIZE = "metadata/annotations-size", Error, "The annotations together exceed 256 KiB.";
    METADATA_FINALIZER = "metadata/finalizer", Error, "A finalizer is not a valid qualified name.", template;
    METADATA_MANAGED_FIELDS = "metadata/managed-fields", Error, "A managedFields entry has no or an unknown operation, a fieldsType other than FieldsV1, or a manager or subresource the API server refuses.";
    METADATA_OWNER_REFERENCE = "metadata/owner-reference", Error, "An owner reference lacks its version, kind, name or uid, or names an Event.", completeness;
    METADATA_TYPE = "metadata/type", Error, "Metadata of the wrong type (or an embedded resource's apiVersion or kind that is not a string), which the API server cannot decode.";
    // The API server's own validation of built-in kinds.
    NATIVE_CONTAINER = "native/container", Error, "A pod has no container, or a container has no image, a name that is invalid or taken, an image pull policy the API server does not know, or a proc mount it does not allow.";
    NATIVE_PORT = "native/port", Error, "A container or Service port has an invalid number, name or protocol, or lacks a name it needs.";
    NATIVE_ENV = "native/env", Error, "An environment variable has no name or one the API server does not accept.";
    NATIVE_VOLUME_MOUNT = "native/volume-mount", Error, "A container mounts a volume the pod does not declare.";
    NATIVE_QUANTITY = "native/quantity", Error, "A resource quantity does not parse, which fails the whole request.";
    NATIVE_RESOURCES = "native/resources", Error, "A container requests more than its limit, or an extended resource without an equal limit.";
    NATIVE_RESTART_POLICY = "native/restart-policy", Error, "A pod's restartPolicy is not one its controller accepts.";
    NATIVE_SELECTOR = "native/selector", Error, "A workload's selector is empty or does not match its pod template's labels.";
    NATIVE_RUNTIME_CLASS = "native/runtime-class", Error, "A RuntimeClass's handler is not a DNS label.";
    NATIVE_DISRUPTION_BUDGET = "native/disruption-budget", Error, "A PodDisruptionBudget sets both minAvailable and maxUnavailable, a negative number or a bad percentage, or an unknown unhealthy-pod eviction policy.";
    // CEL rules on custom resources.
    CEL_RULE = "cel/rule", Error, "An x-kubernetes-validations rule fails on the object.", also(Warning), completeness;
    CEL_RUNTIME_ERROR = "cel/runtime-error", Error, "A rule fails with an error while it runs (no such key, overflow, cost limit).", completeness;
    CEL_SKIPPED = "cel/skipped", Information, "The object's rules were not run, because of schema errors the API server reports first.", completeness;
    // CEL rules in CRDs.
    CEL_COMPILE_ERROR = "cel/compile-error", Error, "A rule or message expression does not compile or type-check against its schema.";
    CEL_COST = "cel/cost", Error, "A rule's estimated cost is over the per-rule limit (a warning within 10% of it).", also(Warning), completeness;
    CEL_COST_TOTAL = "cel/cost-total", Error, "The rules of a version together are estimated over the per-CRD limit (a warning within 10% of it).", also(Warning);
    CEL_RULE_REQUIRED = "cel/rule-required", Error, "A validation has no rule.";
    CEL_MESSAGE = "cel/message", Error, "A rule's message is blank or spans lines, or a rule of several lines has no message.";
    CEL_REASON = "cel/reason", Error, "A reason is not one of the four the API server allows.";
    CEL_FIELD_PATH = "cel/field-path", Error, "A fieldPath does not resolve in the schema.";
    CEL_OLD_SELF = "cel/old-self", Error, "A transition rule sits where old values cannot be correlated.";
    CEL_OPTIONAL_OLD_SELF = "cel/optional-old-self", Error, "optionalOldSelf is set on a rule that does not use oldSelf.";
    // CRDs.
    CRD_LEGACY_V1BETA1 = "crd/legacy-v1beta1", Error, "The CRD is written as apiextensions.k8s.io/v1beta1, which no API server serves since 1.22.";
    CRD_STRUCTURAL = "crd/structural", Error, "The schema is not structural.";
    CRD_FORBIDDEN_FIELD = "crd/forbidden-field", Error, "The schema uses a keyword the API server forbids.";
    CRD_UNKNOWN_FIELD = "crd/unknown-field", Warning, "A field apiextensions.k8s.io/v1 does not have; dropped (rejected with strict validation).", also(Error);
    CRD_FIELD_TYPE = "crd/field-type", Error, "A CRD field of the wrong type, which the API server cannot decode.";
    CRD_SCHEMA = "crd/schema", Error, "A schema keyword holds a value the API server rejects.";
    CRD_FORMAT = "crd/format", Warning, "A format the API server does not know; it is dropped and checks nothing.";
    CRD_DEFAULT = "crd/default", Error, "A default that is not valid against its schema, or stands where defaults are not allowed.";
    CRD_LIST_TYPE = "crd/list-type", Error, "x-kubernetes-list-type, list-map-keys or map-type set wrongly.";
    CRD_STATUS = "crd/status", Error, "The status subresource's root schema uses what it may not.";
    CRD_METADATA = "crd/metadata", Error, "The CRD's name is not <plural>.<group>, or its metadata is invalid.";
    CRD_NAMES = "crd/names", Error, "The group, scope or names (kind, plural, singular, listKind, shortNames, categories) are invalid.", also(Warning);
    CRD_VERSIONS = "crd/versions", Error, "The versions are invalid: names, storage, served, schemas or deprecation.";
    CRD_PRINTER_COLUMN = "crd/printer-column", Error, "An additional printer column is invalid or names a path the schema lacks.", also(Warning);
    CRD_SCALE = "crd/scale", Error, "A scale subresource path is invalid or not in the schema.", also(Warning);
    CRD_SELECTABLE_FIELD = "crd/selectable-field", Error, "A selectable field is invalid or not in the schema.";
    CRD_CONVERSION = "crd/conversion", Error, "The conversion strategy or webhook configuration is invalid.";
    CRD_VERSION_FIELD_LOSS = "crd/version-field-loss", Warning, "The storage version has a field a served version lacks, so it is lost converting between them.", also(Information);
    CRD_VERSION_TYPE_CHANGE = "crd/version-type-change", Warning, "A field has different types in served versions that convert without a webhook.", also(Information);
    // CRD evolution: what a change from the CRD's previous version breaks.
    CRD_CHANGE_SCOPE = "crd-change/scope", Error, "The CRD's scope changed between Namespaced and Cluster.";
    CRD_CHANGE_STORED_VERSION_REMOVED = "crd-change/stored-version-removed", Error, "A version objects are stored in was removed.";
    CRD_CHANGE_SERVED_VERSION_REMOVED = "crd-change/served-version-removed", Error, "A served version was removed or is no longer served.";
    CRD_CHANGE_FIELD_REMOVED = "crd-change/field-removed", Error, "A field of the previous schema was removed.";
    CRD_CHANGE_TYPE = "crd-change/type", Error, "A field's type (or x-kubernetes-int-or-string) changed.";
    CRD_CHANGE_REQUIRED = "crd-change/required", Error, "An existing object now requires a field it did not.";
    CRD_CHANGE_DEFAULT = "crd-change/default", Warning, "A field's default was added, changed or removed.";
    CRD_CHANGE_ENUM = "crd-change/enum", Error, "An enum was added to a field, or values were removed from its enum.";
    CRD_CHANGE_ENUM_VALUES_ADDED = "crd-change/enum-values-added", Warning, "Values were added to a field's enum.";
    CRD_CHANGE_BOUND = "crd-change/bound", Error, "A minimum, maximum, length, item or property bound (or multipleOf) was added or tightened.";
    CRD_CHANGE_PATTERN = "crd-change/pattern", Error, "A field's pattern was added or changed.";
    CRD_CHANGE_FORMAT = "crd-change/format", Error, "A format the API server validates was added to a field or changed.";
    CRD_CHANGE_JUNCTOR = "crd-change/junctor", Warning, "An allOf, anyOf, oneOf or not was added or tightened on an existing field.";
    CRD_CHANGE_PATTERN_REMOVED = "crd-change/pattern-removed", Information, "A field's pattern was removed.";
    CRD_CHANGE_NULLABLE_REMOVED = "crd-change/nullable-removed", Error, "A field no longer accepts null.";
    CRD_CHANGE_NULLABLE_ADDED = "crd-change/nullable-added", Information, "A field now accepts null.";
    CRD_CHANGE_RULE = "crd-change/rule", Warning, "An x-kubernetes-validations rule was added or changed on an existing field.";
    CRD_CHANGE_LIST_TYPE = "crd-change/list-type", Error, "A list type, its map keys or a map type changed.";
    CRD_CHANGE_PRESERVE_UNKNOWN_FIELDS = "crd-change/preserve-unknown-fields", Error, "x-kubernetes-preserve-unknown-fields was removed, so unknown fields are pruned.";
    CRD_CHANGE_EMBEDDED_RESOURCE = "crd-change/embedded-resource", Error, "x-kubernetes-embedded-resource was added or removed.";
    CRD_CHANGE_VERSION_FIELD_LOSS = "crd-change/version-field-loss", Error, "The change makes a version clients already use lose fields of the storage version through conversion None.";
    CRD_CHANGE_BREAKS_OBJECTS = "crd-change/breaks-objects", Error, "Custom resources of the workspace that the previous CRD accepts and the changed one rejects.";
    // Files.
    HELM_TEMPLATES = "helm/templates", Hint, "Helm chart templates are checked only where they are literal YAML.";
    // CRD sources beyond the workspace.
    SOURCE_UNAVAILABLE = "source/unavailable", Warning, "A configured CRD source (a URL, the cluster, a chart archive) could not be read.";
    SOURCE_OUTSIDE_WORKSPACE = "source/outside-workspace", Warning, "A path a workspace file names (a CRD path of an untrusted crdls.toml, a kustomization's patch) leads out of the workspace, so crdls does not read it.";
}

/// The code named `name`.
pub fn lookup(name: &str) -> Option<&'static Code> {
    ALL.iter().find(|c| c.name == name)
}

/// The documentation of every code: what triggers it, an example, how to fix it.
const EXPLANATIONS: &str = include_str!("explanations.md");

/// The documentation of the code named `name` (the text of its section of `explanations.md`).
pub fn explanation(name: &str) -> Option<&'static str> {
    sections().find(|(code, _)| *code == name).map(|(_, text)| text)
}

/// The sections of `explanations.md`: each code with its text.
fn sections() -> impl Iterator<Item = (&'static str, &'static str)> {
    EXPLANATIONS.split("\n## ").filter_map(|section| {
        let section = section.strip_prefix("## ").unwrap_or(section);
        let (code, text) = section.split_once('\n')?;
        Some((code.trim(), text.trim()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_documented_once_and_every_section_is_a_code() {
        let documented: Vec<&str> = sections().map(|(code, _)| code).collect();
        for code in ALL {
            assert_eq!(documented.iter().filter(|c| **c == code.name).count(), 1, "{} needs one section in explanations.md", code.name);
            assert!(code.summary.ends_with('.') && !code.summary.contains('\n'), "{}: a one-line sentence", code.name);
        }
        for code in documented {
            assert!(lookup(code).is_some(), "explanations.md documents {code}, which is not a code");
        }
        let mut names: Vec<&str> = ALL.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL.len(), "codes are unique");
    }
}
