//! Field paths in the API server's notation: `spec.ports[0].name`. A path is a chain of borrowed
//! steps on the stack, so walking a tree builds no strings; text is made only when a message needs it.

use std::fmt;

use crate::{Entry, Node, Segment, Value};

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

/// How far a field path leads into a document's tree.
#[derive(Clone, Debug)]
pub struct Followed<'n, 'p> {
    /// The steps taken.
    pub segments: Vec<Segment<'n>>,
    /// The root, then the node reached by each step.
    pub nodes: Vec<&'n Node>,
    /// The entry of the last step, when it was a key.
    pub entry: Option<&'n Entry>,
    /// What is left of the path: empty when the whole path exists.
    pub rest: &'p str,
}

/// Follows an API-server field path (`spec.ports[0].name`, `metadata.labels[app]`) down a tree. Keys
/// may hold dots (`metadata.labels.app.kubernetes.io/name`): the longest key that fits is taken.
pub fn follow<'n, 'p>(root: &'n Node, path: &'p str) -> Followed<'n, 'p> {
    let mut found = Followed { segments: Vec::new(), nodes: vec![root], entry: None, rest: path };
    let mut node = root;
    while !found.rest.is_empty() {
        let rest = found.rest;
        if let Some(inner) = rest.strip_prefix('[') {
            let Some(close) = inner.find(']') else { break };
            let key = &inner[..close];
            let after = &inner[close + 1..];
            match &node.value {
                Value::Seq(items) => match key.parse::<usize>().ok().and_then(|i| items.get(i).map(|n| (i, n))) {
                    Some((i, item)) => {
                        found.segments.push(Segment::Index(i));
                        found.entry = None;
                        node = item;
                    }
                    None => break,
                },
                Value::Map(entries) => match entries.iter().find(|e| e.key == key) {
                    Some(e) => {
                        found.segments.push(Segment::Key(&e.key));
                        found.entry = Some(e);
                        node = &e.value;
                    }
                    None => break,
                },
                _ => break,
            }
            found.nodes.push(node);
            found.rest = after;
            continue;
        }
        let field = rest.strip_prefix('.').unwrap_or(rest);
        let Value::Map(entries) = &node.value else { break };
        let fits = |e: &&Entry| field.starts_with(e.key.as_str()) && matches!(field[e.key.len()..].chars().next(), None | Some('.' | '['));
        let Some(e) = entries.iter().filter(fits).max_by_key(|e| e.key.len()) else { break };
        found.segments.push(Segment::Key(&e.key));
        found.entry = Some(e);
        node = &e.value;
        found.nodes.push(node);
        found.rest = &field[e.key.len()..];
    }
    found
}

impl<'n> Followed<'n, '_> {
    /// Whether the whole path exists.
    pub fn complete(&self) -> bool {
        self.rest.is_empty()
    }

    /// The deepest node the path reached (the root when not even its first step exists).
    pub fn node(&self) -> &'n Node {
        self.nodes[self.nodes.len() - 1]
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
