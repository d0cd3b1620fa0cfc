//! A pod's spec, in a Pod or a pod template: its containers (at least one; names that are DNS labels
//! and unique, init containers' names also unique against the others; an image), their ports
//! (number, name, protocol), their image pull policy, and the restart policy (the pod's own rule, and the one its controller
//! adds).

use crdls_diagnostics::codes;
use crdls_diagnostics::TextRange;
use crdls_yaml::{Node, Value};

use super::{error, port_name_errors, port_number, supported, Found, Target};
use crate::field_error::ErrorType;
use crate::gofmt;

/// The protocols a port may use, sorted as the API server lists them.
pub(super) const PROTOCOLS: &[&str] = &["SCTP", "TCP", "UDP"];

/// Validates the pod spec `spec` at `path` (`spec`, `spec.template.spec`, ...), whose key is at `key`;
/// `claims` are the volumes a StatefulSet adds for its claim templates.
pub(super) fn validate_pod_spec(spec: &Node, key: TextRange, path: &str, claims: &[&str], target: Target<'_>, out: &mut Vec<Found>) {
    let mut volumes: Vec<&str> = claims.to_vec();
    volumes.extend(spec.get("volumes").and_then(Node::as_seq).unwrap_or_default().iter().filter_map(|v| v.get_str("name")));
    let image_volumes: Vec<&str> = spec
        .get("volumes")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter(|v| v.get("image").is_some())
        .filter_map(|v| v.get_str("name"))
        .collect();
    let checks = ContainerChecks {
        volumes: &volumes,
        image_volumes: &image_volumes,
        relaxed_env_names: target.minor >= 32,
        bind_mount_options: target.minor >= 37,
        proc_mount: target.minor >= 33,
        host_users: spec.get("hostUsers").is_none_or(|n| n.value != Value::Bool(false)),
    };
    // Pods have a handful of containers and volumes: a list is faster than a set.
    let mut names: Vec<&str> = Vec::new();
    if let Some(containers) = spec.get("containers") {
        match containers.as_seq() {
            Some([]) => out.push(Found::field(
                error(ErrorType::Required, format!("{path}.containers"), None, ""),
                containers.range,
                codes::NATIVE_CONTAINER,
                "a pod needs at least one container",
            )),
            Some(items) => {
                for (i, container) in items.iter().enumerate() {
                    let at = format!("{path}.containers[{i}]");
                    container_name(container, &at, &mut names, true, out);
                    container_common(container, &at, &checks, out);
                }
            }
            None => {}
        }
    }
    if let Some(items) = spec.get("initContainers").and_then(Node::as_seq) {
        for (i, container) in items.iter().enumerate() {
            let at = format!("{path}.initContainers[{i}]");
            container_name(container, &at, &mut names, false, out);
            container_common(container, &at, &checks, out);
        }
    }
    restart_policy(spec, key, path, target, out);
}

/// The name of a container: a DNS-1123 label, not used by an earlier container. A missing name is the
/// schema's Required error. Regular containers record even an empty name; init containers do not.
fn container_name<'n>(container: &'n Node, path: &str, names: &mut Vec<&'n str>, regular: bool, out: &mut Vec<Found>) {
    let Some(node) = container.get("name") else { return };
    let Some(name) = node.as_str() else { return };
    let at = format!("{path}.name");
    if name.is_empty() {
        out.push(Found::field(error(ErrorType::Required, &at, None, ""), node.range, codes::NATIVE_CONTAINER, "a container needs a name"));
    } else {
        for detail in crdls_go::names::dns1123_label(name) {
            let message = format!("container name {name:?} is not a DNS label: {detail}");
            out.push(Found::field(
                error(ErrorType::Invalid, &at, Some(gofmt::quote(name)), detail),
                node.range,
                codes::NATIVE_CONTAINER,
                message,
            ));
        }
    }
    if name.is_empty() && !regular {
        return;
    }
    if names.contains(&name) {
        let message = format!("another container of this pod is already named {name:?}");
        out.push(Found::field(
            error(ErrorType::Duplicate, &at, Some(gofmt::quote(name)), ""),
            node.range,
            codes::NATIVE_CONTAINER,
            message,
        ));
    } else {
        names.push(name);
    }
}

/// What a pod's containers are checked against.
struct ContainerChecks<'a> {
    /// The pod's volumes, by name.
    volumes: &'a [&'a str],
    /// Those of them that are image volumes.
    image_volumes: &'a [&'a str],
    /// Whether volume mounts have `bindMountOptions` (1.37 on).
    bind_mount_options: bool,
    /// Whether environment variable names may be any printable ASCII but `=` (1.32 on), rather than
    /// C identifiers with `-` and `.`.
    relaxed_env_names: bool,
    /// Whether a container's `securityContext.procMount` is kept (the ProcMountType feature, on by
    /// default from 1.33; before, the API server drops the field from a new pod).
    proc_mount: bool,
    /// Whether the pod uses the host's user namespace: `hostUsers` is left out or true.
    host_users: bool,
}

/// The proc mount types a container may ask for.
const PROC_MOUNTS: &[&str] = &["Default", "Unmasked"];

/// A container's `securityContext.procMount`: a known type, and `Unmasked` only in a pod with its own user
/// namespace (`hostUsers: false`), since an unmasked /proc of the host's namespace exposes the host.
fn proc_mount(container: &Node, path: &str, checks: &ContainerChecks<'_>, out: &mut Vec<Found>) {
    if !checks.proc_mount {
        return;
    }
    let Some(node) = container.get("securityContext").and_then(|c| c.get("procMount")) else { return };
    let Some(value) = node.as_str() else { return };
    let at = format!("{path}.securityContext.procMount");
    if !PROC_MOUNTS.contains(&value) {
        out.push(Found::field(
            error(ErrorType::NotSupported, &at, Some(gofmt::quote(value)), supported(PROC_MOUNTS)),
            node.range,
            codes::NATIVE_CONTAINER,
            format!("procMount {value:?} is not one of Default, Unmasked"),
        ));
    } else if value == "Unmasked" && checks.host_users {
        out.push(Found::field(
            error(ErrorType::Invalid, &at, Some(gofmt::quote(value)), "`hostUsers` must be false to use `Unmasked`"),
            node.range,
            codes::NATIVE_CONTAINER,
            "procMount Unmasked needs a user namespace of the pod's own: set the pod's hostUsers to false",
        ));
    }
}

/// The options a volume mount may ask of its bind mount (`bindMountOptions`, 1.37 on; earlier releases
/// have no such field, and their schemas prune it).
const BIND_MOUNT_OPTIONS: &[&str] = &["nodev", "noexec", "nosuid"];

/// A volume mount's `bindMountOptions`: each a supported option, none twice, and none on an image volume.
fn bind_mount_options(mount: &Node, at: &str, checks: &ContainerChecks<'_>, out: &mut Vec<Found>) {
    let Some(list) = mount.get("bindMountOptions").filter(|_| checks.bind_mount_options) else { return };
    let Some(options) = list.as_seq().filter(|o| !o.is_empty()) else { return };
    let mut seen: Vec<&str> = Vec::new();
    for (i, option) in options.iter().enumerate() {
        let Some(value) = option.as_str() else { continue };
        if !BIND_MOUNT_OPTIONS.contains(&value) {
            out.push(Found::field(
                error(
                    ErrorType::NotSupported,
                    format!("{at}.bindMountOptions[{i}]"),
                    Some(gofmt::quote(value)),
                    supported(BIND_MOUNT_OPTIONS),
                ),
                option.range,
                codes::NATIVE_VOLUME_MOUNT,
                format!("bind mount option {value:?} is not supported: use nodev, noexec or nosuid"),
            ));
        }
        if seen.contains(&value) {
            out.push(Found::field(
                error(ErrorType::Duplicate, format!("{at}.bindMountOptions[{i}]"), Some(gofmt::quote(value)), ""),
                option.range,
                codes::NATIVE_VOLUME_MOUNT,
                format!("bind mount option {value:?} is given twice"),
            ));
        }
        seen.push(value);
    }
    if mount.get_str("name").is_some_and(|name| checks.image_volumes.contains(&name)) {
        let shown: Vec<String> = options.iter().map(|o| o.as_str().map_or_else(|| "null".to_string(), gofmt::quote)).collect();
        out.push(Found::field(
            error(
                ErrorType::Invalid,
                format!("{at}.bindMountOptions"),
                Some(format!("[{}]", shown.join(","))),
                "bindMountOptions may not be used with image volumes",
            ),
            list.range,
            codes::NATIVE_VOLUME_MOUNT,
            "bindMountOptions may not be used with image volumes",
        ));
    }
}

/// The image, ports, environment, volume mounts and resources of any container.
fn container_common(container: &Node, path: &str, checks: &ContainerChecks<'_>, out: &mut Vec<Found>) {
    if !matches!(container.value, Value::Map(_)) {
        return;
    }
    env_names(container, path, checks.relaxed_env_names, out);
    proc_mount(container, path, checks, out);
    for (i, mount) in container.get("volumeMounts").and_then(Node::as_seq).unwrap_or_default().iter().enumerate() {
        bind_mount_options(mount, &format!("{path}.volumeMounts[{i}]"), checks, out);
        let Some(node) = mount.get("name") else { continue };
        let Some(name) = node.as_str().filter(|n| !n.is_empty()) else { continue };
        if !checks.volumes.contains(&name) {
            out.push(Found::field(
                error(ErrorType::NotFound, format!("{path}.volumeMounts[{i}].name"), Some(gofmt::quote(name)), ""),
                node.range,
                codes::NATIVE_VOLUME_MOUNT,
                format!("the pod has no volume named {name:?}"),
            ));
        }
    }
    super::resources::requests_within_limits(container, path, out);
    match container.get("image") {
        None => out.push(Found::field(
            error(ErrorType::Required, format!("{path}.image"), None, ""),
            first_key(container),
            codes::NATIVE_CONTAINER,
            "missing required field \"image\": the API server requires an image for every container",
        )),
        Some(image) if image.as_str() == Some("") => out.push(Found::field(
            error(ErrorType::Required, format!("{path}.image"), None, ""),
            image.range,
            codes::NATIVE_CONTAINER,
            "the image is empty: the API server requires an image for every container",
        )),
        Some(_) => {}
    }
    pull_policy(container, path, out);
    let Some(ports) = container.get("ports").and_then(Node::as_seq) else { return };
    let mut port_names: Vec<&str> = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        let at = format!("{path}.ports[{i}]");
        if let Some(name_node) = port.get("name") {
            if let Some(name) = name_node.as_str().filter(|n| !n.is_empty()) {
                for detail in port_name_errors(name) {
                    out.push(Found::field(
                        error(ErrorType::Invalid, format!("{at}.name"), Some(gofmt::quote(name)), detail),
                        name_node.range,
                        codes::NATIVE_PORT,
                        format!("port name {name:?} is not an IANA service name; it {detail}"),
                    ));
                }
                if port_names.contains(&name) {
                    out.push(Found::field(
                        error(ErrorType::Duplicate, format!("{at}.name"), Some(gofmt::quote(name)), ""),
                        name_node.range,
                        codes::NATIVE_PORT,
                        format!("another port of this container is already named {name:?}"),
                    ));
                } else {
                    port_names.push(name);
                }
            }
        }
        for field in ["containerPort", "hostPort"] {
            let Some(node) = port.get(field) else { continue };
            if node.value == Value::Int(0) {
                // A host port of 0 means none; a container port of 0 is one left out.
                if field == "containerPort" {
                    out.push(Found::field(
                        error(ErrorType::Required, format!("{at}.containerPort"), None, ""),
                        node.range,
                        codes::NATIVE_PORT,
                        "containerPort is required: 0 is no port",
                    ));
                }
                continue;
            }
            port_number(node, &format!("{at}.{field}"), field, out);
        }
        protocol(port, &at, out);
    }
}

/// A port's protocol, defaulted to TCP when left out; checked on container and service ports alike.
pub(super) fn protocol(port: &Node, path: &str, out: &mut Vec<Found>) {
    let Some(node) = port.get("protocol") else { return };
    if node.as_str().is_some_and(|p| PROTOCOLS.contains(&p)) || node.value == Value::Null {
        return;
    }
    let shown = gofmt::value(node);
    out.push(Found::field(
        error(ErrorType::NotSupported, format!("{path}.protocol"), Some(shown.clone()), supported(PROTOCOLS)),
        node.range,
        codes::NATIVE_PORT,
        format!("protocol {shown} is not supported: use SCTP, TCP or UDP (upper case)"),
    ));
}

/// A container's `imagePullPolicy`: one of the three policies, spelt as the API server spells them
/// (`validatePullPolicy`); an empty one is defaulted before validation.
fn pull_policy(container: &Node, path: &str, out: &mut Vec<Found>) {
    const POLICIES: &[&str] = &["Always", "IfNotPresent", "Never"];
    let Some(node) = container.get("imagePullPolicy") else { return };
    let Some(value) = node.as_str().filter(|v| !v.is_empty() && !POLICIES.contains(v)) else { return };
    out.push(Found::field(
        error(ErrorType::NotSupported, format!("{path}.imagePullPolicy"), Some(gofmt::quote(value)), supported(POLICIES)),
        node.range,
        codes::NATIVE_CONTAINER,
        format!("imagePullPolicy {value:?} is not one of Always, IfNotPresent, Never"),
    ));
}

/// The pod's restart policy, and the one its controller requires: Always for workloads that keep
/// pods running, OnFailure or Never for Jobs.
fn restart_policy(spec: &Node, key: TextRange, path: &str, target: Target<'_>, out: &mut Vec<Found>) {
    const POD: &[&str] = &["Always", "OnFailure", "Never"];
    let node = spec.get("restartPolicy");
    let value = node.and_then(Node::as_str);
    let at = format!("{path}.restartPolicy");
    if let (Some(node), Some(value)) = (node, value) {
        if !value.is_empty() && !POD.contains(&value) {
            out.push(Found::field(
                error(ErrorType::NotSupported, &at, Some(gofmt::quote(value)), supported(POD)),
                node.range,
                codes::NATIVE_RESTART_POLICY,
                format!("restartPolicy {value:?} is not one of Always, OnFailure, Never"),
            ));
        }
    }
    let range = node.map_or(key, |n| n.range);
    match (target.group, target.kind) {
        ("apps", _) | ("", "ReplicationController") => {
            if let Some(value) = value.filter(|v| !v.is_empty() && *v != "Always") {
                out.push(Found::field(
                    error(ErrorType::NotSupported, &at, Some(gofmt::quote(value)), supported(&["Always"])),
                    range,
                    codes::NATIVE_RESTART_POLICY,
                    format!("a {} restarts its pods' containers: restartPolicy must be Always, not {value:?}", target.kind),
                ));
            }
        }
        ("batch", _) => match value {
            None | Some("" | "Always") => out.push(Found::field(
                error(ErrorType::Required, &at, None, "valid values: \"OnFailure\", \"Never\""),
                range,
                codes::NATIVE_RESTART_POLICY,
                "a Job's pods must set restartPolicy to OnFailure or Never (the default, Always, is not allowed)",
            )),
            Some("OnFailure" | "Never") => {}
            Some(value) => out.push(Found::field(
                error(ErrorType::NotSupported, &at, Some(gofmt::quote(value)), supported(&["OnFailure", "Never"])),
                range,
                codes::NATIVE_RESTART_POLICY,
                format!("a Job's pods must set restartPolicy to OnFailure or Never, not {value:?}"),
            )),
        },
        _ => {}
    }
}

/// Where to point at a map that lacks a field: its first key (`name` in `- name: web`), or its start.
fn first_key(map: &Node) -> TextRange {
    match map.as_map() {
        Some([first, ..]) => first.key_range,
        _ => TextRange::empty(map.range.start),
    }
}

/// The names of a container's environment variables.
fn env_names(container: &Node, path: &str, relaxed: bool, out: &mut Vec<Found>) {
    for (i, variable) in container.get("env").and_then(Node::as_seq).unwrap_or_default().iter().enumerate() {
        let Some(node) = variable.get("name") else { continue };
        let Some(name) = node.as_str() else { continue };
        let at = format!("{path}.env[{i}].name");
        if name.is_empty() {
            out.push(Found::field(
                error(ErrorType::Required, &at, None, ""),
                node.range,
                codes::NATIVE_ENV,
                "an environment variable needs a name",
            ));
            continue;
        }
        let detail = if relaxed {
            if name.bytes().all(|b| (b' '..=b'~').contains(&b) && b != b'=') {
                continue;
            }
            "a valid environment variable name must consist only of printable ASCII characters other than '='"
        } else {
            let mut bytes = name.bytes();
            let first = bytes.next().is_some_and(|b| b.is_ascii_alphabetic() || b"-._".contains(&b));
            if first && bytes.all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b)) {
                continue;
            }
            "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"
        };
        out.push(Found::field(
            error(ErrorType::Invalid, &at, Some(gofmt::quote(name)), detail),
            node.range,
            codes::NATIVE_ENV,
            format!("{name:?} is not a valid environment variable name: {detail}"),
        ));
    }
}
