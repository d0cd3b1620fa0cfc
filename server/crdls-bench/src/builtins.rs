//! `crdls-bench builtins`: checking a file of built-in objects against checking a custom-resource
//! file of the same size. About 5,000 lines each: 100 Deployments (pod template, probes, resources,
//! environment, volumes: the native rules all run) and 100 Widgets of the fixture CRD. Reports the
//! medians, their ratio, and the first check of a Deployment in the process, which loads the built-in
//! schemas.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use crdls_check::{check_stream, CheckOptions};
use crdls_crd::{Crd, CrdIndex};

use crate::median;

/// One Deployment; `{i}` is replaced by its index. 50 lines.
const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-{i}
  labels:
    app.kubernetes.io/name: web
    app.kubernetes.io/instance: web-{i}
spec:
  replicas: 3
  selector:
    matchLabels:
      app.kubernetes.io/instance: web-{i}
  template:
    metadata:
      labels:
        app.kubernetes.io/instance: web-{i}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          ports:
            - containerPort: 8080
              name: http
              protocol: TCP
          env:
            - name: PORT
              value: \"8080\"
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
            limits:
              cpu: \"1\"
              memory: 256Mi
          readinessProbe:
            httpGet:
              path: /healthz
              port: http
            periodSeconds: 10
          volumeMounts:
            - name: cache
              mountPath: /cache
      volumes:
        - name: cache
          emptyDir: {}
      restartPolicy: Always
";

fn file(template: &str, documents: usize) -> String {
    (0..documents).map(|i| template.replace("{i}", &i.to_string())).collect::<Vec<_>>().join("---\n")
}

pub fn run(fixtures_crd: &Path, runs: usize) {
    let deployments = file(DEPLOYMENT, 100);
    let widgets = file(crate::lsp::DOCUMENT, 100);
    let mut index = CrdIndex::new();
    let crd_text = std::fs::read_to_string(fixtures_crd).expect("read the fixture CRD");
    let crds: Vec<Crd> = crdls_yaml::parse(&crd_text).documents.iter().flat_map(Crd::from_document).collect();
    index.set_source(Arc::from(fixtures_crd.display().to_string()), crds);
    let options = CheckOptions::default();
    let check = |text: &str| {
        let stream = crdls_yaml::parse(text);
        check_stream(&stream, &index, &options).documents.iter().map(|d| d.diagnostics.len()).sum::<usize>()
    };

    let start = Instant::now();
    let newest = crdls_builtins::newest();
    let load = start.elapsed();
    let start = Instant::now();
    let built = crdls_builtins::schema(newest, "apps", "v1", "Deployment").is_some();
    let build = start.elapsed();
    assert!(built, "the newest release serves apps/v1 Deployment");
    let start = Instant::now();
    let first = check(DEPLOYMENT.replace("{i}", "0").as_str());
    let first_time = start.elapsed() + load + build;
    assert_eq!(first, 0, "the benchmark's Deployment is valid");

    let time = |text: &str| {
        let mut samples = Vec::new();
        let mut diagnostics = 0;
        for _ in 0..runs {
            let start = Instant::now();
            diagnostics = check(text);
            samples.push(start.elapsed());
        }
        (median(samples), diagnostics)
    };
    let (built_in, built_in_diagnostics) = time(&deployments);
    let (custom, custom_diagnostics) = time(&widgets);
    println!(
        "built-in objects: {} lines, 100 Deployments: {:.2} ms ({built_in_diagnostics} diagnostics)",
        deployments.lines().count(),
        built_in.as_secs_f64() * 1e3
    );
    println!(
        "custom resources: {} lines, 100 Widgets:     {:.2} ms ({custom_diagnostics} diagnostics)",
        widgets.lines().count(),
        custom.as_secs_f64() * 1e3
    );
    println!("ratio built-in/custom: {:.2}", built_in.as_secs_f64() / custom.as_secs_f64());
    println!(
        "first Deployment of the process: {:.2} ms, of which loading the built-in data {:.2} ms and building the Deployment schema {:.2} ms",
        first_time.as_secs_f64() * 1e3,
        load.as_secs_f64() * 1e3,
        build.as_secs_f64() * 1e3
    );
}
