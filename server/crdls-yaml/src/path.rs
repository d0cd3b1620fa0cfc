//! Field paths in the API server's notation: `spec.ports[0].name`. A path is a chain of borrowed
//! steps on the stack, so walking a tree builds no strings; text is made only when a message needs it.

use std::fmt;

/// One step of a field path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step<'a> {
    /// The object's root.
    Root,
    /// A field of an object (`.name`).
    Field(&'a str),
    /// A key of a map (`[key]`).
    Key(&'a str),
    /// An index into a list (`[0]`).
    Index(usize),
}

/// A field path, printed as `k8s.io/apimachinery`'s `field.Path` prints it.
#[derive(Clone, Copy, Debug)]
pub struct FieldPath<'a> {
    parent: Option<&'a FieldPath<'a>>,
    step: Step<'a>,
}

impl FieldPath<'static> {
    /// The empty path (the object's root).
    pub fn root() -> FieldPath<'static> {
        FieldPath { parent: None, step: Step::Root }
    }
}

impl<'a> FieldPath<'a> {
    /// This path with one more field.
    pub fn field<'b>(&'b self, name: &'b str) -> FieldPath<'b> {
        FieldPath { parent: Some(self), step: Step::Field(name) }
    }

    /// This path with one more map key, printed `[key]`.
    pub fn key<'b>(&'b self, key: &'b str) -> FieldPath<'b> {
        FieldPath { parent: Some(self), step: Step::Key(key) }
    }

    /// This path with one more list index.
    pub fn index<'b>(&'b self, index: usize) -> FieldPath<'b> {
        FieldPath { parent: Some(self), step: Step::Index(index) }
    }

    /// Whether this is the root.
    pub fn is_root(&self) -> bool {
        self.step == Step::Root
    }

    /// Writes the path; returns whether anything was written (the root writes nothing).
    fn write(&self, f: &mut fmt::Formatter<'_>) -> Result<bool, fmt::Error> {
        let wrote_parent = match self.parent {
            Some(parent) => parent.write(f)?,
            None => false,
        };
        match self.step {
            Step::Root => return Ok(wrote_parent),
            Step::Field(name) if wrote_parent => write!(f, ".{name}")?,
            Step::Field(name) => f.write_str(name)?,
            Step::Key(key) => write!(f, "[{key}]")?,
            Step::Index(index) => write!(f, "[{index}]")?,
        }
        Ok(true)
    }
}

impl fmt::Display for FieldPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_field_path() {
        let root = FieldPath::root();
        let spec = root.field("spec");
        let ports = spec.field("ports");
        let first = ports.index(0);
        assert_eq!(first.field("name").to_string(), "spec.ports[0].name");
        let metadata = root.field("metadata");
        let labels = metadata.field("labels");
        assert_eq!(labels.key("app.kubernetes.io/name").to_string(), "metadata.labels[app.kubernetes.io/name]");
        assert_eq!(root.to_string(), "");
        assert!(root.is_root() && !spec.is_root());
    }
}
