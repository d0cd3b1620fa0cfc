//! Times the first uses of the built-in schemas: loading the data, the first schemas built, a cached
//! one, and the resource kinds of a few groups of the newest release. `cargo run --release -p crdls-builtins --example first_use`.

// An example that reports what it measured.
#![allow(clippy::print_stdout)]

use std::time::Instant;

fn main() {
    let start = Instant::now();
    let kube = crdls_builtins::newest();
    let load = start.elapsed();
    let start = Instant::now();
    let deployment = crdls_builtins::schema(kube, "apps", "v1", "Deployment");
    let first = start.elapsed();
    let again = Instant::now();
    let _ = crdls_builtins::schema(kube, "apps", "v1", "Deployment");
    let cached = again.elapsed();
    let pod = Instant::now();
    let _ = crdls_builtins::schema(kube, "", "v1", "Pod");
    let pod = pod.elapsed();
    let every = Instant::now();
    let mut built = 0;
    for group in ["", "apps", "batch", "networking.k8s.io", "policy", "rbac.authorization.k8s.io", "apiextensions.k8s.io"] {
        for (version, kind) in crdls_builtins::kinds(kube, group) {
            built += usize::from(crdls_builtins::schema(kube, group, version, kind).is_some());
        }
    }
    let every = every.elapsed();
    println!("releases: {:?}", crdls_builtins::kubernetes_versions().iter().map(|v| v.to_string()).collect::<Vec<_>>());
    println!("first call (inflates and parses the data): {load:?}");
    println!("first schema() (Deployment): {first:?} ({})", deployment.is_some());
    println!("Deployment again (cached): {cached:?}");
    println!("Pod, first time: {pod:?}");
    println!("{built} more kinds of {kube}: {every:?}");
}
