//! The `kubeconfig` target: kubeconfig YAML (one file, or several separated by a `#--- next file` line,
//! as `$KUBECONFIG` lists them) through `crdls_sources::cluster::read_kubeconfigs`, the reading and
//! merging step that comes before any plugin or connection. Nothing may panic or hang; an error names
//! its cause; the files a kubeconfig names come out absolute. Only the parsing step is called, so no
//! exec plugin can run and no connection can be made (the seeds' plugin is `/nonexistent/never-run`
//! all the same).

use std::path::{Path, PathBuf};

use crate::mutate::{mutate, Dialect};
use crate::rng::Rng;
use crate::scratch::Scratch;

/// The line that separates the files of one input.
pub const NEXT_FILE: &str = "#--- next file";
/// The largest input the target builds.
const MAX_LEN: usize = 64 * 1024;
/// The most files of one input.
const MAX_FILES: usize = 4;

const SEEDS: &[&str] = &[
    "apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev
  cluster:
    server: https://127.0.0.1:1
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=
- name: prod
  cluster:
    server: https://10.255.255.1:6443
    certificate-authority: ca.crt
    tls-server-name: api.example.com
    insecure-skip-tls-verify: false
contexts:
- name: dev
  context:
    cluster: dev
    user: token-user
    namespace: default
- name: prod
  context:
    cluster: prod
    user: cert-user
- name: plugin
  context:
    cluster: prod
    user: exec-user
users:
- name: token-user
  user:
    token: s3cret-token
- name: file-token-user
  user:
    tokenFile: ./token
- name: cert-user
  user:
    client-certificate: certs/client.crt
    client-key: certs/client.key
- name: data-cert-user
  user:
    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
    client-key-data: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCg==
- name: exec-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: /nonexistent/never-run
      args: [get-token, --cluster, prod]
      env:
      - name: NEVER
        value: run
      interactiveMode: Never
      provideClusterInfo: true
preferences: {}
",
    "apiVersion: v1
kind: Config
current-context: first
contexts:
- name: first
  context: {cluster: a, user: a}
clusters:
- name: a
  cluster: {server: 'https://127.0.0.1:1'}
users:
- name: a
  user:
    exec:
      command: /nonexistent/never-run
      apiVersion: client.authentication.k8s.io/v1beta1
#--- next file
apiVersion: v1
kind: Config
current-context: second
contexts:
- name: first
  context: {cluster: b, user: b}
- name: second
  context: {cluster: b, user: b, namespace: kube-system}
clusters:
- name: b
  cluster: {server: 'http://127.0.0.1:2', proxy-url: 'socks5://127.0.0.1:3'}
users:
- name: b
  user:
    username: admin
    password: hunter2
    as: someone
    as-groups: [system:masters]
    auth-provider:
      name: oidc
      config: {idp-issuer-url: 'https://127.0.0.1:4', refresh-token: r}
",
    "{\"apiVersion\":\"v1\",\"kind\":\"Config\",\"clusters\":[{\"name\":\"j\",\"cluster\":{\"server\":\"https://127.0.0.1:1\"}}],\"contexts\":[{\"name\":\"j\",\"context\":{\"cluster\":\"j\",\"user\":\"j\"}}],\"users\":[{\"name\":\"j\",\"user\":{\"exec\":{\"command\":\"/nonexistent/never-run\",\"apiVersion\":\"client.authentication.k8s.io/v1\"}}}],\"current-context\":\"j\"}\n",
];

/// The `kubeconfig` target: one or more kubeconfig files, merged as `KUBECONFIG` merges them.
pub fn target(regressions: Vec<String>) -> super::FnTarget {
    super::FnTarget {
        name: "kubeconfig",
        extension: "yaml",
        seeds: SEEDS.iter().map(|s| s.to_string()).chain(regressions).collect(),
        mutate: mutate_files,
        run,
        deadline: super::DEFAULT_DEADLINE,
        lines_only: false,
    }
}

/// A mutant kubeconfig; sometimes another file to merge, or two documents in one file.
fn mutate_files(rng: &mut Rng, input: &str, other: &str) -> String {
    let mut text = mutate(rng, input, other, Dialect::Yaml, MAX_LEN);
    if rng.one_in(8) {
        let separator = if rng.one_in(2) { NEXT_FILE } else { "---" };
        text = format!("{text}\n{separator}\n{other}");
    }
    text
}

/// Writes the input's files and reads them as one merged kubeconfig.
pub fn run(input: &str) -> Result<(), String> {
    let scratch = Scratch::new("kubeconfig")?;
    let mut paths: Vec<PathBuf> = Vec::new();
    for (i, text) in input.split(&format!("\n{NEXT_FILE}\n")).take(MAX_FILES).enumerate() {
        let dir = scratch.path().join(format!("d{i}"));
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        let path = dir.join("config");
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        paths.push(path);
    }
    let config = match crdls_sources::cluster::read_kubeconfigs(&paths) {
        Ok(config) => config,
        Err(e) => {
            let cause = e.split_once(": ").map_or("", |(_, cause)| cause);
            return if cause.trim().is_empty() { Err(format!("a kubeconfig error names no cause: {e:?}")) } else { Ok(()) };
        }
    };
    let absolute = |what: &str, path: &Option<String>| match path {
        Some(p) if !p.is_empty() && Path::new(p).is_relative() => Err(format!("the kubeconfig's {what} {p:?} was left relative")),
        _ => Ok(()),
    };
    for cluster in config.clusters.iter().filter_map(|c| c.cluster.as_ref()) {
        absolute("certificate authority", &cluster.certificate_authority)?;
    }
    for user in config.auth_infos.iter().filter_map(|u| u.auth_info.as_ref()) {
        absolute("client certificate", &user.client_certificate)?;
        absolute("client key", &user.client_key)?;
        absolute("token file", &user.token_file)?;
        if let Some(command) = user.exec.as_ref().and_then(|e| e.command.as_ref()) {
            if command.contains('/') && Path::new(command).is_relative() {
                return Err(format!("the kubeconfig's plugin command {command:?} was left relative"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_read_and_merge() {
        for seed in SEEDS {
            assert_eq!(run(seed), Ok(()), "{seed}");
        }
        let scratch = Scratch::new("kubeconfig-test").expect("a scratch directory");
        let first = scratch.write("a", SEEDS[0].as_bytes()).expect("written");
        let config = crdls_sources::cluster::read_kubeconfigs(&[first]).expect("the seed reads");
        assert_eq!(config.contexts.len(), 3);
        let ca = config.clusters.iter().find_map(|c| c.cluster.as_ref()?.certificate_authority.clone());
        assert_eq!(ca, Some(scratch.path().join("ca.crt").to_string_lossy().into_owned()));
    }
}
