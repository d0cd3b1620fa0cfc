//! Editing CEL inside a CRD's `x-kubernetes-validations`: completion after `self.` (the fields of the
//! schema node the rule belongs to, escaped as CEL spells them, and the functions that apply to the
//! value's type), `self`/`oldSelf` and the global functions elsewhere, and hover showing the type of
//! the expression under the cursor. The rule's text is mapped from YAML source offsets to offsets in
//! the decoded string, whatever the quoting or folding.

use crdls_cel::escape::escape;
use crdls_cel::{check, parse, Type};
use crdls_crd::cel::{cel_type, ROOT_TYPE_NAME};
use crdls_crd::{is_crd, AdditionalProperties, Schema};
use crdls_diagnostics::TextRange;
use crdls_yaml::{locate, Node, ScalarMap, Segment, Stream};

use crate::types::{CompletionItem, CompletionKind, HoverResult};

/// Where the cursor is inside a rule string.
struct RuleSite {
    /// The rule's decoded text.
    source: String,
    /// The cursor, in bytes of `source`.
    at: usize,
    /// Maps decoded offsets back to the file.
    map: ScalarMap,
    /// The schema node the rule belongs to.
    owner: Schema,
    /// Whether that node is a resource root (implicit `apiVersion`, `kind`, `metadata`).
    resource_root: bool,
}

/// The rule string under `offset`, when the cursor is in a CRD's `rule` or `messageExpression`.
fn site(text: &str, stream: &Stream, offset: usize) -> Option<RuleSite> {
    let location = locate(stream, offset)?;
    let root = location.document.root.as_ref()?;
    is_crd(root)?;
    let path = &location.path;
    let n = path.len();
    if n < 3 || location.key.is_some() {
        return None;
    }
    let (Segment::Key("x-kubernetes-validations"), Segment::Index(_), Segment::Key("rule" | "messageExpression")) =
        (path[n - 3], path[n - 2], path[n - 1])
    else {
        return None;
    };
    let owner_node = node_at(root, &path[..n - 3])?;
    let resource_root = matches!(path.get(n - 4), Some(Segment::Key("openAPIV3Schema")))
        || owner_node.get("x-kubernetes-embedded-resource").is_some_and(|v| v.value == crdls_yaml::Value::Bool(true));
    let node = location.node;
    let source = node.as_str()?.to_string();
    let map = ScalarMap::new(text, node)?;
    let at = decoded_offset(&map, &source, offset);
    Some(RuleSite { source, at, map, owner: Schema::from_node(owner_node), resource_root })
}

fn node_at<'n>(root: &'n Node, path: &[Segment<'_>]) -> Option<&'n Node> {
    path.iter().try_fold(root, |node, segment| match segment {
        Segment::Key(k) => node.get(k),
        Segment::Index(i) => node.as_seq()?.get(*i),
    })
}

/// The offset in the decoded string whose source position is the cursor's (the last one at or before it).
fn decoded_offset(map: &ScalarMap, source: &str, cursor: usize) -> usize {
    let mut best = 0;
    for (i, _) in source.char_indices().chain(std::iter::once((source.len(), ' '))) {
        if map.source_range(i, i).start <= cursor {
            best = i;
        } else {
            break;
        }
    }
    best
}

/// Completions inside a rule string; `None` when the cursor is not in one.
pub(crate) fn completions(text: &str, stream: &Stream, offset: usize) -> Option<Vec<CompletionItem>> {
    let site = site(text, stream, offset)?;
    let before = &site.source[..site.at];
    let word_start = before.rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
    let word = site.map.source_range(word_start, site.at);
    let replace = TextRange::new(word.start, word.end.max(word.start));
    let head = before[..word_start].trim_end_matches('?');
    let mut items = Vec::new();
    if let Some(receiver) = head.strip_suffix('.') {
        let chain = member_chain(receiver);
        let Some((schema, ty)) = resolve_chain(&site, before, &chain) else { return Some(Vec::new()) };
        if let (Some(schema), Type::Object(object)) = (schema, &ty) {
            for (name, field) in &object.fields {
                let description = schema
                    .properties
                    .iter()
                    .find(|p| p.name == field.property)
                    .and_then(|p| p.schema.description.as_deref())
                    .map(str::to_string);
                items.push(item(name, CompletionKind::Field, Some(field.ty.to_string()), description, name.clone(), replace, "0"));
            }
        }
        for (name, signature) in member_functions(&ty) {
            items.push(item(&name, CompletionKind::Value, Some(signature), None, format!("{name}("), replace, "1"));
        }
    } else {
        items.push(item(
            "self",
            CompletionKind::Field,
            self_type(&site).map(|t| t.to_string()),
            Some("The value of the schema node the rule is declared on.".into()),
            "self".into(),
            replace,
            "0",
        ));
        items.push(item(
            "oldSelf",
            CompletionKind::Field,
            self_type(&site).map(|t| t.to_string()),
            Some("The value before the update: using it makes this a transition rule, which runs only on updates (or always, as an optional, with `optionalOldSelf: true`).".into()),
            "oldSelf".into(),
            replace,
            "0",
        ));
        for (name, signature) in global_functions() {
            items.push(item(&name, CompletionKind::Value, Some(signature), None, format!("{name}("), replace, "1"));
        }
    }
    items.sort_by(|a, b| (&a.sort_text, &a.label).cmp(&(&b.sort_text, &b.label)));
    Some(items)
}

fn item(
    label: &str,
    kind: CompletionKind,
    detail: Option<String>,
    documentation: Option<String>,
    insert: String,
    replace: TextRange,
    rank: &str,
) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind,
        detail,
        documentation,
        insert_text: insert,
        snippet: false,
        replace,
        sort_text: format!("{rank}/{label}"),
        deprecated: false,
    }
}

fn self_type(site: &RuleSite) -> Option<Type> {
    cel_type(&site.owner, site.resource_root, ROOT_TYPE_NAME)
}

/// The identifiers of a member chain ending the text: `self.spec.?items` is `[self, spec, items]`.
fn member_chain(text: &str) -> Vec<String> {
    let mut chain = Vec::new();
    let mut rest = text;
    loop {
        let start = rest.rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
        let name = &rest[start..];
        if name.is_empty() {
            break;
        }
        chain.push(name.to_string());
        let before = rest[..start].trim_end_matches('?');
        match before.strip_suffix('.') {
            Some(b) => rest = b,
            None => break,
        }
    }
    chain.reverse();
    chain
}

/// The schema (when known) and CEL type at the end of a member chain. The root is `self`, `oldSelf`,
/// or the variable of an enclosing macro (`self.items.all(i, i.`).
fn resolve_chain<'s>(site: &'s RuleSite, before: &str, chain: &[String]) -> Option<(Option<&'s Schema>, Type)> {
    let (root, rest) = chain.split_first()?;
    let (mut schema, mut ty): (Option<&Schema>, Type) = match root.as_str() {
        "self" | "oldSelf" => (Some(&site.owner), self_type(site)?),
        variable => {
            // `<chain>.all(variable, ...`: the variable is an element of that chain.
            let (range_chain, two) = macro_range(before, variable)?;
            let (schema, ty) = resolve_chain(site, before, &range_chain)?;
            element(schema, &ty, two)?
        }
    };
    for name in rest {
        let next_schema = schema.and_then(|s| child_schema(s, name));
        ty = match ty {
            Type::Object(o) => o.fields.get(name)?.ty.clone(),
            Type::Map(_, v) => *v,
            Type::Optional(inner) => match *inner {
                Type::Object(o) => o.fields.get(name)?.ty.clone(),
                Type::Map(_, v) => *v,
                _ => return None,
            },
            _ => return None,
        };
        schema = next_schema;
    }
    Some((schema, ty))
}

/// The receiver chain of the innermost macro whose (first or second) variable is `variable`, and
/// whether it was the second variable of a two-variable macro.
fn macro_range(before: &str, variable: &str) -> Option<(Vec<String>, bool)> {
    let macros = ["all", "exists", "exists_one", "existsOne", "map", "filter", "transformList", "transformMap", "transformMapEntry"];
    let mut best: Option<(usize, Vec<String>, bool)> = None;
    for m in macros {
        let needle = format!(".{m}(");
        let mut from = 0;
        while let Some(i) = before[from..].find(&needle) {
            let at = from + i;
            let args = &before[at + needle.len()..];
            let names: Vec<&str> = args.split(',').take(2).map(str::trim).collect();
            let second = names.get(1).is_some_and(|n| *n == variable && n.chars().all(|c| c.is_alphanumeric() || c == '_'));
            if (names.first() == Some(&variable) || second) && best.as_ref().is_none_or(|(b, _, _)| at > *b) {
                best = Some((at, member_chain(&before[..at]), second));
            }
            from = at + 1;
        }
    }
    best.map(|(_, chain, second)| (chain, second))
}

/// The element of a collection a macro variable stands for: list items, or a map's keys (values for
/// the second variable).
fn element<'s>(schema: Option<&'s Schema>, ty: &Type, second: bool) -> Option<(Option<&'s Schema>, Type)> {
    match ty {
        // A list's first variable is the item, or with two variables the index and then the item.
        Type::List(elem) => Some((schema.and_then(|s| s.items.as_deref()), (**elem).clone())),
        Type::Map(k, _) if !second => Some((None, (**k).clone())),
        Type::Map(_, v) => Some((
            schema.and_then(|s| match &s.additional_properties {
                Some(AdditionalProperties::Schema(values)) => Some(&**values),
                _ => None,
            }),
            (**v).clone(),
        )),
        _ => None,
    }
}

fn child_schema<'s>(schema: &'s Schema, escaped: &str) -> Option<&'s Schema> {
    if let Some(p) = schema.properties.iter().find(|p| escape(&p.name).as_deref() == Some(escaped)) {
        return Some(&p.schema);
    }
    match &schema.additional_properties {
        Some(AdditionalProperties::Schema(values)) => Some(values),
        _ => None,
    }
}

/// Functions and macros callable on a value of type `ty`, with a signature to show.
fn member_functions(ty: &Type) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    if matches!(ty, Type::List(_) | Type::Map(..) | Type::Dyn) {
        for (m, sig) in [
            ("all", "all(x, predicate) -> bool"),
            ("exists", "exists(x, predicate) -> bool"),
            ("exists_one", "exists_one(x, predicate) -> bool"),
            ("map", "map(x, expression) -> list"),
            ("filter", "filter(x, predicate) -> list"),
        ] {
            out.push((m.to_string(), sig.to_string()));
        }
    }
    if matches!(ty, Type::List(_) | Type::Dyn) {
        out.push(("sortBy".into(), "sortBy(x, key) -> list".into()));
    }
    for (name, overloads) in crdls_cel::decls::functions() {
        if name.contains(['_', '@', '.']) {
            continue;
        }
        for o in overloads.iter().filter(|o| o.receiver) {
            if receiver_fits(&o.params[0], ty) {
                let args: Vec<String> = o.params[1..].iter().map(Type::to_string).collect();
                out.push((name.to_string(), format!("{}.{name}({}) -> {}", o.params[0], args.join(", "), o.result)));
                break;
            }
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// Whether a declared receiver type accepts values of type `ty` (type parameters accept anything of
/// the right shape).
fn receiver_fits(declared: &Type, ty: &Type) -> bool {
    match (declared, ty) {
        (_, Type::Dyn) => true,
        (Type::Param(_), _) => true,
        (Type::List(d), Type::List(t)) | (Type::Optional(d), Type::Optional(t)) => receiver_fits(d, t),
        (Type::Map(dk, dv), Type::Map(tk, tv)) => receiver_fits(dk, tk) && receiver_fits(dv, tv),
        (a, b) => a == b,
    }
}

/// Global functions, for the start of an expression.
fn global_functions() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![("has".into(), "has(a.b) -> bool: whether the field is set".into())];
    for (name, overloads) in crdls_cel::decls::functions() {
        if name.starts_with(['_', '@']) || name.contains('@') {
            continue;
        }
        if let Some(o) = overloads.iter().find(|o| !o.receiver) {
            let args: Vec<String> = o.params.iter().map(Type::to_string).collect();
            out.push((name.to_string(), format!("{name}({}) -> {}", args.join(", "), o.result)));
        }
    }
    out.sort();
    out
}

/// Hover inside a rule string: the type of the identifier or field selection under the cursor.
pub(crate) fn hover(text: &str, stream: &Stream, offset: usize) -> Option<Option<HoverResult>> {
    let site = site(text, stream, offset)?;
    let Some(self_type) = self_type(&site) else { return Some(None) };
    let Ok(parsed) = parse(&site.source) else { return Some(None) };
    let checked = check(&parsed, &[("self", self_type.clone()), ("oldSelf", self_type)]);
    let mut best: Option<(usize, usize, u64)> = None;
    visit(&parsed.expr, &mut |e| {
        let Some(&start) = parsed.offsets.get(&e.id) else { return };
        let span = match &e.expr {
            crdls_cel::ast::Expr::Ident(name) => Some((start, start + name.len())),
            crdls_cel::ast::Expr::Select(s) if !s.test => Some((start, start + 1 + s.field.len())),
            _ => None,
        };
        if let Some((from, to)) = span {
            if from <= site.at && site.at <= to && best.is_none_or(|(f, t, _)| to - from < t - f) {
                best = Some((from, to, e.id));
            }
        }
    });
    let Some((from, to, id)) = best else { return Some(None) };
    let ty = checked.types.get(&id)?;
    let expression_start = chain_start(&site.source, from);
    let shown = &site.source[expression_start..to];
    let markdown = format!("`{shown}`: **{ty}**");
    Some(Some(HoverResult { range: site.map.source_range(from, to), markdown }))
}

/// Where the member chain ending at `end` starts (`self.spec.x` for the `.x` selection).
fn chain_start(source: &str, end: usize) -> usize {
    let bytes = source.as_bytes();
    let mut i = end;
    while i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || matches!(bytes[i - 1], b'_' | b'.' | b'?')) {
        i -= 1;
    }
    i
}

fn visit(expr: &crdls_cel::ast::IdedExpr, f: &mut impl FnMut(&crdls_cel::ast::IdedExpr)) {
    f(expr);
    for child in crdls_cel::parse::children(expr) {
        visit(child, f);
    }
}

#[cfg(test)]
mod tests {
    use crdls_test_fixture as fixture;

    use super::*;

    /// A CRD whose one rule is `self.$0`, for the tests to replace.
    fn crd() -> String {
        fixture::Crd::new("Pump")
            .schema(
                r#"
                type: object
                properties:
                  spec:
                    type: object
                    x-kubernetes-validations:
                    - rule: "self.$0"
                    properties:
                      rate: {type: integer, description: Liters per minute.}
                      x-mode: {type: string}
                      ports:
                        type: array
                        items:
                          type: object
                          properties:
                            port: {type: integer}
                "#,
            )
            .yaml()
    }

    fn complete(rule: &str) -> Vec<String> {
        let with_cursor = crd().replace("self.$0", rule);
        let offset = with_cursor.find("$0").unwrap();
        let text = with_cursor.replacen("$0", "", 1);
        let stream = crdls_yaml::parse(&text);
        completions(&text, &stream, offset)
            .unwrap_or_default()
            .into_iter()
            .map(|i| format!("{} [{}]", i.label, i.detail.unwrap_or_default()))
            .collect()
    }

    #[test]
    fn fields_after_self_are_escaped_and_typed() {
        let items = complete("self.$0");
        assert!(
            items.starts_with(&[
                "ports [list(Object.ports.@idx)]".to_string(),
                "rate [int]".to_string(),
                "x__dash__mode [string]".to_string()
            ]),
            "{items:?}"
        );
        assert!(!items.iter().any(|i| i.starts_with("all [")), "objects are not iterable: {items:?}");
    }

    #[test]
    fn functions_follow_the_type_and_macro_variables_resolve() {
        let on_string = complete("self.x__dash__mode.$0");
        assert!(on_string.iter().any(|i| i.starts_with("startsWith [string.startsWith(string) -> bool]")), "{on_string:?}");
        let on_list = complete("self.ports.$0");
        assert!(on_list.iter().any(|i| i.starts_with("all [")) && on_list.iter().any(|i| i.starts_with("size [")), "{on_list:?}");
        let in_macro = complete("self.ports.all(p, p.$0");
        assert!(in_macro.starts_with(&["port [int]".to_string()]), "{in_macro:?}");
        let top = complete("o$0");
        assert!(top.iter().any(|i| i.starts_with("oldSelf")) && top.iter().any(|i| i.starts_with("quantity [")), "{top:?}");
    }

    #[test]
    fn hover_shows_the_type_under_the_cursor() {
        let text = crd().replace("self.$0", "self.rate > 1 && self.ports.size() > 0");
        let at = text.find("rate >").unwrap() + 1;
        let stream = crdls_yaml::parse(&text);
        let hover = hover(&text, &stream, at).flatten().unwrap();
        assert_eq!(hover.markdown, "`self.rate`: **int**");
        assert_eq!(&text[hover.range.start..hover.range.end], ".rate");
    }
}
