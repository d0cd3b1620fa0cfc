//! CEL types as the checker sees them, printed the way cel-go prints them in its errors
//! (`list(int)`, `map(string, dyn)`, `google.protobuf.Duration`, `optional_type(string)`).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// A CEL type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// Any type: checked at run time.
    Dyn,
    /// The type of an expression that failed to check.
    Error,
    /// `null_type`.
    Null,
    /// `bool`.
    Bool,
    /// `int` (64-bit signed).
    Int,
    /// `uint` (64-bit unsigned).
    Uint,
    /// `double`.
    Double,
    /// `string`.
    String,
    /// `bytes`.
    Bytes,
    /// `google.protobuf.Duration`.
    Duration,
    /// `google.protobuf.Timestamp`.
    Timestamp,
    /// `list(T)`.
    List(Box<Type>),
    /// `map(K, V)`.
    Map(Box<Type>, Box<Type>),
    /// `type(T)`, the type of a type value; `type` alone when unknown.
    Type(Option<Box<Type>>),
    /// `optional_type(T)`.
    Optional(Box<Type>),
    /// An object type derived from a schema.
    Object(Arc<ObjectType>),
    /// A Kubernetes library type (`net.IP`, `kubernetes.Quantity`, ...).
    Opaque(Opaque),
    /// A type parameter of a function declaration, or a type variable of the checker.
    Param(Arc<str>),
}

/// The Kubernetes library types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Opaque {
    /// `net.IP`.
    Ip,
    /// `net.CIDR`.
    Cidr,
    /// `kubernetes.URL`.
    Url,
    /// `kubernetes.Quantity`.
    Quantity,
    /// `kubernetes.Semver`.
    Semver,
    /// `kubernetes.NamedFormat`.
    Format,
}

impl Opaque {
    /// The name cel-go prints.
    pub fn name(self) -> &'static str {
        match self {
            Opaque::Ip => "net.IP",
            Opaque::Cidr => "net.CIDR",
            Opaque::Url => "kubernetes.URL",
            Opaque::Quantity => "kubernetes.Quantity",
            Opaque::Semver => "kubernetes.Semver",
            Opaque::Format => "kubernetes.NamedFormat",
        }
    }
}

/// An object type: a name and its fields, by (escaped) name.
#[derive(Debug, Eq, PartialOrd, Ord)]
pub struct ObjectType {
    /// The type's name (`Object.spec.template`); two object types are the same type when their names are.
    pub name: String,
    /// The fields, by the name CEL code uses for them.
    pub fields: BTreeMap<String, Field>,
}

impl PartialEq for ObjectType {
    fn eq(&self, other: &ObjectType) -> bool {
        self.name == other.name
    }
}

impl std::hash::Hash for ObjectType {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

/// One field of an object type.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Field {
    /// Its type.
    pub ty: Type,
    /// The property's name in the schema (before escaping).
    pub property: String,
}

impl Type {
    /// `list(elem)`.
    pub fn list(elem: Type) -> Type {
        Type::List(Box::new(elem))
    }

    /// `map(key, value)`.
    pub fn map(key: Type, value: Type) -> Type {
        Type::Map(Box::new(key), Box::new(value))
    }

    /// `optional_type(inner)`.
    pub fn optional(inner: Type) -> Type {
        Type::Optional(Box::new(inner))
    }

    /// `type(of)`.
    pub fn type_of(of: Type) -> Type {
        Type::Type(Some(Box::new(of)))
    }

    /// A type parameter or variable named `name`.
    pub fn param(name: &str) -> Type {
        Type::Param(Arc::from(name))
    }

    /// Whether the type is `dyn` or the error type (both accept anything).
    pub fn is_dyn_or_error(&self) -> bool {
        matches!(self, Type::Dyn | Type::Error)
    }

    /// Whether the type mentions a type parameter.
    pub fn has_params(&self) -> bool {
        match self {
            Type::Param(_) => true,
            Type::List(t) | Type::Optional(t) => t.has_params(),
            Type::Map(k, v) => k.has_params() || v.has_params(),
            Type::Type(Some(t)) => t.has_params(),
            _ => false,
        }
    }

    /// The name of the type as a value of `type(...)`: what `type(x)` evaluates to and prints.
    pub fn runtime_name(&self) -> String {
        match self {
            Type::List(_) => "list".into(),
            Type::Map(..) => "map".into(),
            Type::Type(_) => "type".into(),
            Type::Optional(_) => "optional_type".into(),
            Type::Duration => "google.protobuf.Duration".into(),
            Type::Timestamp => "google.protobuf.Timestamp".into(),
            other => other.to_string(),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Dyn => f.write_str("dyn"),
            // cel-go's checker formats the type of an expression in error as `!error!` (`FormatCELType`).
            Type::Error => f.write_str("!error!"),
            // cel-go's checker formats the null type as `null` (`FormatCELType`); `null_type` is its
            // runtime name, which `type(null)` gives.
            Type::Null => f.write_str("null"),
            Type::Bool => f.write_str("bool"),
            Type::Int => f.write_str("int"),
            Type::Uint => f.write_str("uint"),
            Type::Double => f.write_str("double"),
            Type::String => f.write_str("string"),
            Type::Bytes => f.write_str("bytes"),
            // Also as cel-go's checker formats them; their runtime names are the protobuf ones.
            Type::Duration => f.write_str("duration"),
            Type::Timestamp => f.write_str("timestamp"),
            Type::List(t) => write!(f, "list({t})"),
            Type::Map(k, v) => write!(f, "map({k}, {v})"),
            Type::Type(None) => f.write_str("type"),
            Type::Type(Some(t)) => write!(f, "type({t})"),
            Type::Optional(t) => write!(f, "optional_type({t})"),
            Type::Object(o) => f.write_str(&o.name),
            Type::Opaque(o) => f.write_str(o.name()),
            Type::Param(name) => f.write_str(name),
        }
    }
}

/// Parses a type as declarations write it: `int`, `list(A)`, `map(K, V)`, `optional_type(T)`,
/// `type(A)`, `net.IP`; single capital letters are type parameters.
pub(crate) fn parse_type(text: &str) -> Type {
    let text = text.trim();
    let (head, args) = match text.find('(') {
        Some(open) if text.ends_with(')') => (&text[..open], split_args(&text[open + 1..text.len() - 1])),
        _ => (text, Vec::new()),
    };
    let arg = |i: usize| args.get(i).map_or(Type::Dyn, |a| parse_type(a));
    match head {
        "dyn" => Type::Dyn,
        "null_type" => Type::Null,
        "bool" => Type::Bool,
        "int" => Type::Int,
        "uint" => Type::Uint,
        "double" => Type::Double,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "duration" | "google.protobuf.Duration" => Type::Duration,
        "timestamp" | "google.protobuf.Timestamp" => Type::Timestamp,
        "list" => Type::list(arg(0)),
        "map" => Type::map(arg(0), arg(1)),
        "optional_type" => Type::optional(arg(0)),
        "type" if args.is_empty() => Type::Type(None),
        "type" => Type::type_of(arg(0)),
        "net.IP" => Type::Opaque(Opaque::Ip),
        "net.CIDR" => Type::Opaque(Opaque::Cidr),
        "kubernetes.URL" => Type::Opaque(Opaque::Url),
        "kubernetes.Quantity" => Type::Opaque(Opaque::Quantity),
        "kubernetes.Semver" => Type::Opaque(Opaque::Semver),
        "kubernetes.NamedFormat" => Type::Opaque(Opaque::Format),
        p if p.len() == 1 && p.chars().all(|c| c.is_ascii_uppercase()) => Type::param(p),
        other => panic!("unknown type in a declaration: {other}"),
    }
}

/// Splits `a, map(b, c), d` at its top-level commas.
fn split_args(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(text[start..].trim());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_print_as_cel_go_prints_them() {
        for text in ["list(int)", "map(string, list(A))", "optional_type(kubernetes.Quantity)", "type(dyn)", "duration", "list(timestamp)"]
        {
            assert_eq!(parse_type(text).to_string(), text);
        }
        // `FormatCELType` prints the well-known types by their short names; `type(x)` gives the long ones.
        assert_eq!(parse_type("google.protobuf.Duration").to_string(), "duration");
        assert_eq!(Type::Timestamp.runtime_name(), "google.protobuf.Timestamp");
        assert_eq!(parse_type("timestamp"), Type::Timestamp);
        assert!(parse_type("map(K, V)").has_params());
    }
}
