//! The paths a CRD points into its own schema with: printer-column JSONPaths (parsed the way
//! client-go's `jsonpath` package parses `{<path>}` when the API server builds the table convertor)
//! and the dot paths of the scale subresource, resolved against a version's schema.

use crdls_crd::{AdditionalProperties, Schema};

/// One step of a path, as far as resolution cares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// `.name` or `['name']`.
    Field(String),
    /// `[0]`, `[*]`, `[1:3]`, `[?(...)]`: into the elements of a list (or the values of a map).
    Elements,
    /// Anything resolution cannot follow (`..`, unions, literals).
    Opaque,
}

/// Parses a printer column's JSONPath as the API server does (`{` + path + `}`), returning the
/// steps of its first action or client-go's error text.
pub(super) fn parse_column_path(path: &str) -> Result<Vec<Step>, String> {
    let mut p = Parser { input: format!("{{{path}}}").chars().collect(), pos: 0, steps: Vec::new(), actions: 0 };
    p.text()?;
    Ok(p.steps)
}

struct Parser {
    input: Vec<char>,
    pos: usize,
    steps: Vec<Step>,
    /// How many `{...}` actions were parsed; steps are kept from the first only.
    actions: usize,
}

impl Parser {
    fn next(&mut self) -> Option<char> {
        let c = self.input.get(self.pos).copied();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }

    fn peek(&self) -> Option<char> {
        self.input.get(self.pos).copied()
    }

    fn rest_starts_with(&self, s: &str) -> bool {
        let rest = self.input.get(self.pos..).unwrap_or_default();
        let wanted: Vec<char> = s.chars().collect();
        rest.starts_with(&wanted)
    }

    fn step(&mut self, step: Step) {
        if self.actions == 1 {
            self.steps.push(step);
        }
    }

    fn text(&mut self) -> Result<(), String> {
        while let Some(c) = self.next() {
            if c == '{' {
                self.actions += 1;
                self.inside()?;
            }
        }
        Ok(())
    }

    fn inside(&mut self) -> Result<(), String> {
        loop {
            if self.rest_starts_with("}") {
                self.pos += 1;
                return Ok(());
            }
            if self.rest_starts_with("[?(") {
                self.pos += 3;
                self.filter()?;
                continue;
            }
            if self.rest_starts_with("..") {
                self.pos += 2;
                self.step(Step::Opaque);
                if self.peek().is_some_and(is_alphanumeric) {
                    self.field();
                }
                continue;
            }
            match self.next() {
                None | Some('\r' | '\n') => return Err("unclosed action".into()),
                Some(' ' | '@' | '$') => {}
                Some('[') => self.array()?,
                Some(q @ ('"' | '\'')) => {
                    self.quote(q)?;
                    self.step(Step::Opaque);
                }
                Some('.') => self.field(),
                Some(c) if c == '+' || c == '-' || c.is_ascii_digit() => {
                    while self.peek().is_some_and(|c| c == '.' || c.is_ascii_digit()) {
                        self.pos += 1;
                    }
                    self.step(Step::Opaque);
                }
                Some(c) if is_alphanumeric(c) => {
                    while self.peek().is_some_and(|c| !is_terminator(Some(c))) {
                        self.pos += 1;
                    }
                    self.step(Step::Opaque);
                }
                Some(c) => return Err(format!("unrecognized character in action: U+{:04X} '{c}'", c as u32)),
            }
        }
    }

    /// A field name up to the next terminator, with `\` escaping the next character.
    fn field(&mut self) {
        let mut name = String::new();
        loop {
            match self.peek() {
                Some('\\') => {
                    self.pos += 1;
                    if let Some(c) = self.next() {
                        name.push(c);
                    }
                }
                c if is_terminator(c) => break,
                Some(c) => {
                    self.pos += 1;
                    name.push(c);
                }
                None => break,
            }
        }
        self.step(if name == "*" { Step::Elements } else { Step::Field(name) });
    }

    fn array(&mut self) -> Result<(), String> {
        let start = self.pos;
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated array".into()),
                Some(']') => break,
                _ => {}
            }
        }
        let text: String = self.input[start..self.pos - 1].iter().collect();
        let text = if text == "*" { ":".to_string() } else { text };
        if text.contains(',') {
            for part in text.split(',') {
                let mut sub =
                    Parser { input: format!("{{[{}]}}", part.trim_matches(' ')).chars().collect(), pos: 0, steps: Vec::new(), actions: 0 };
                sub.text()?;
            }
            self.step(Step::Opaque);
            return Ok(());
        }
        if let Some(key) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')).filter(|k| !k.contains('\'')) {
            let mut sub = Parser { input: format!("{{.{key}}}").chars().collect(), pos: 0, steps: Vec::new(), actions: 0 };
            sub.text()?;
            for s in sub.steps {
                self.step(s);
            }
            return Ok(());
        }
        if !is_slice(&text) {
            return Err(format!("invalid array index {text}"));
        }
        self.step(Step::Elements);
        Ok(())
    }

    fn filter(&mut self) -> Result<(), String> {
        let (mut begin, mut end, mut pair) = (false, false, '"');
        loop {
            let Some(c) = self.next() else { return Err("unterminated filter".into()) };
            match c {
                '\n' => return Err("unterminated filter".into()),
                '"' | '\'' => {
                    if !begin {
                        begin = true;
                        pair = c;
                        continue;
                    }
                    if self.input.get(self.pos.wrapping_sub(2)) != Some(&'\\') && c == pair {
                        end = true;
                    }
                }
                ')' if begin == end => break,
                _ => {}
            }
        }
        if self.next() != Some(']') {
            return Err("unclosed array expect ]".into());
        }
        self.step(Step::Elements);
        Ok(())
    }

    fn quote(&mut self, end: char) -> Result<(), String> {
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated quoted string".into()),
                Some(c) if c == end && self.input.get(self.pos.wrapping_sub(2)) != Some(&'\\') => return Ok(()),
                _ => {}
            }
        }
    }
}

fn is_alphanumeric(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

fn is_terminator(c: Option<char>) -> bool {
    matches!(c, None | Some(' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}'))
}

/// `^(-?\d*)(:-?\d*)?(:-?\d*)?$`.
fn is_slice(text: &str) -> bool {
    let parts: Vec<&str> = text.split(':').collect();
    parts.len() <= 3 && parts.iter().all(|p| p.strip_prefix('-').unwrap_or(p).chars().all(|c| c.is_ascii_digit()))
}

/// What a path leads to in a schema.
pub(super) enum Resolved<'a> {
    /// A declared node.
    Found(&'a Schema),
    /// Somewhere the schema does not describe (kept unknown fields, object metadata): nothing to say.
    Unknown,
    /// A field the schema does not have: the prefix that resolved, and the missing name.
    Missing(String, String),
}

/// Follows `steps` from the root schema of a resource.
pub(super) fn resolve<'a>(root: &'a Schema, steps: &[Step]) -> Resolved<'a> {
    let mut current = root;
    let mut resource = true;
    let mut walked = String::new();
    for step in steps {
        match step {
            Step::Opaque => return Resolved::Unknown,
            Step::Elements => {
                if let Some(items) = current.items.as_deref() {
                    current = items;
                } else if let Some(AdditionalProperties::Schema(values)) = &current.additional_properties {
                    current = values;
                } else {
                    return Resolved::Unknown;
                }
                walked.push_str("[*]");
                resource = current.embedded_resource;
            }
            Step::Field(name) => {
                // A field of a list applies to its elements.
                while current.ty.as_deref() == Some("array") {
                    match current.items.as_deref() {
                        Some(items) => current = items,
                        None => return Resolved::Unknown,
                    }
                }
                // A resource's metadata is ObjectMeta, whatever its schema says.
                if resource && matches!(name.as_str(), "metadata" | "apiVersion" | "kind") {
                    return Resolved::Unknown;
                }
                if let Some(p) = current.property(name) {
                    current = &p.schema;
                } else if let Some(AdditionalProperties::Schema(values)) = &current.additional_properties {
                    current = values;
                } else if current.preserves_unknown_fields()
                    || current.int_or_string
                    || matches!(current.additional_properties, Some(AdditionalProperties::Bool(true)))
                    || (current.ty.is_none() && current.properties.is_empty())
                {
                    return Resolved::Unknown;
                } else {
                    return Resolved::Missing(walked, name.clone());
                }
                walked.push('.');
                walked.push_str(name);
                resource = current.embedded_resource;
            }
        }
    }
    Resolved::Found(current)
}

/// The steps of a scale path in dot notation (`.spec.replicas`), or `None` when it uses anything else.
pub(super) fn dot_steps(path: &str) -> Option<Vec<Step>> {
    let rest = path.strip_prefix('.')?;
    if rest.is_empty() || rest.contains(['[', ']', '*', '@', '$', '?', ' ']) {
        return None;
    }
    rest.split('.').map(|s| (!s.is_empty()).then(|| Step::Field(s.to_string()))).collect()
}
