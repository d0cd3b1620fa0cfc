//! Field paths in the API server's notation: `spec.ports[0].name`, `metadata.labels[app.kubernetes.io/name]`.

use std::fmt;

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathSegment {
    /// A field of an object (`.name`).
    Field(String),
    /// A key of a map (`[key]`), for maps and `additionalProperties`.
    Key(String),
    /// An index into a list (`[0]`).
    Index(usize),
}

/// A field path, as `k8s.io/apimachinery`'s `field.Path` prints it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FieldPath {
    segments: Vec<PathSegment>,
}

impl FieldPath {
    /// The empty path (the object's root).
    pub fn root() -> FieldPath {
        FieldPath::default()
    }

    /// This path with one more field.
    pub fn field(&self, name: &str) -> FieldPath {
        self.with(PathSegment::Field(name.to_string()))
    }

    /// This path with one more map key.
    pub fn key(&self, key: &str) -> FieldPath {
        self.with(PathSegment::Key(key.to_string()))
    }

    /// This path with one more list index.
    pub fn index(&self, index: usize) -> FieldPath {
        self.with(PathSegment::Index(index))
    }

    fn with(&self, segment: PathSegment) -> FieldPath {
        let mut segments = Vec::with_capacity(self.segments.len() + 1);
        segments.extend_from_slice(&self.segments);
        segments.push(segment);
        FieldPath { segments }
    }

    /// The steps of the path.
    pub fn segments(&self) -> &[PathSegment] {
        &self.segments
    }

    /// Whether this is the root.
    pub fn is_root(&self) -> bool {
        self.segments.is_empty()
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.segments.iter().enumerate() {
            match segment {
                PathSegment::Field(name) if i == 0 => f.write_str(name)?,
                PathSegment::Field(name) => write!(f, ".{name}")?,
                PathSegment::Key(key) => write!(f, "[{key}]")?,
                PathSegment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_field_path() {
        let p = FieldPath::root().field("spec").field("ports").index(0).field("name");
        assert_eq!(p.to_string(), "spec.ports[0].name");
        let l = FieldPath::root().field("metadata").field("labels").key("app.kubernetes.io/name");
        assert_eq!(l.to_string(), "metadata.labels[app.kubernetes.io/name]");
        assert_eq!(FieldPath::root().to_string(), "");
    }
}
