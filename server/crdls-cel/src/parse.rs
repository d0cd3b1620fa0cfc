//! Parsing with the `cel` crate: the standard macros plus those the Kubernetes environment adds
//! (two-variable comprehensions, `optMap` and `optFlatMap`, the lists extension's `sortBy`), every
//! node's source offsets kept, and errors located and worded as cel-go words them.

use std::collections::HashMap;
use std::sync::OnceLock;

use cel::common::ast::{CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, ListExpr, LiteralValue, MapEntryExpr, MapExpr};
use cel::parser::{Macro, MacroExprHelper, ParseError};
use cel::Env;

/// The accumulator variable of macro comprehensions.
pub const ACCUMULATOR: &str = "@result";

/// The variable `sortBy` binds its target to, so that the target is evaluated once.
pub const SORT_BY_INPUT: &str = "@__sortBy_input__";

/// A parsed expression.
#[derive(Debug)]
pub struct Parsed {
    /// The expression, macros expanded.
    pub expr: IdedExpr,
    /// The byte offset in the source where each node starts (cel-go's error location for it).
    pub offsets: HashMap<u64, usize>,
    /// The identifiers written with a leading `.` (root-scoped, `.self`), whose names have lost it.
    pub root_scoped: std::collections::HashSet<u64>,
}

/// An error in an expression, at a byte offset of its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CelError {
    /// Where it is, in bytes of the expression.
    pub offset: usize,
    /// What is wrong, in cel-go's words.
    pub message: String,
}

impl CelError {
    /// The error as cel-go displays it: `ERROR: <input>:1:6: undefined field 'foo'`, then the source
    /// line and a caret under the column.
    pub fn display(&self, source: &str) -> String {
        if self.offset == NO_LOCATION {
            return format!("ERROR: <input>:-1:0: {}", self.message);
        }
        let offset = self.offset.min(source.len());
        let line_start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line_no = source[..line_start].matches('\n').count() + 1;
        let column = source[line_start..offset].chars().count() + 1;
        let line_end = source[line_start..].find('\n').map_or(source.len(), |i| line_start + i);
        // cel-go leaves out a source line longer than 16,384 bytes.
        if line_end - line_start > MAX_SNIPPET {
            return format!("ERROR: <input>:{line_no}:{column}: {}", self.message);
        }
        let snippet = source[line_start..line_end].replace('\t', " ");
        let dots: String = snippet.chars().take(column - 1).map(|c| if is_wide(c) { '\u{ff0e}' } else { '.' }).collect();
        let caret = if snippet.chars().nth(column - 1).is_some_and(is_wide) { '\u{ff3e}' } else { '^' };
        format!("ERROR: <input>:{line_no}:{column}: {}\n | {snippet}\n | {dots}{caret}", self.message)
    }
}

/// The offset of an error cel-go reports at no location (`<input>:-1:0`, no source line).
pub const NO_LOCATION: usize = usize::MAX;

/// The longest source line, in bytes, cel-go shows under an error.
const MAX_SNIPPET: usize = 16_384;

/// The most code points an expression may have: cel-go's parser default, which Kubernetes keeps.
/// Longer expressions are refused before they are parsed.
pub const MAX_CODE_POINTS: usize = 100_000;

/// Every error displayed, one after another, as cel-go's `Issues.String()` joins them.
pub fn display_all(errors: &[CelError], source: &str) -> String {
    errors.iter().map(|e| e.display(source)).collect::<Vec<_>>().join("\n")
}

/// Whether cel-go widens the caret line for this character: it takes every character of more than
/// one UTF-8 byte for a wide one (a full-width dot before the column, a full-width caret at it),
/// whatever its display width.
fn is_wide(c: char) -> bool {
    c.len_utf8() > 1
}

/// The parsing environment, built once: the standard macros and the Kubernetes ones.
fn env() -> &'static Env {
    static ENV: OnceLock<Env> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Env::stdlib();
        let macros = [
            Macro::receiver("all", 3, |h, t, a| two_var(h, t, a, TwoVar::All).map(Some)),
            Macro::receiver("exists", 3, |h, t, a| two_var(h, t, a, TwoVar::Exists).map(Some)),
            Macro::receiver("existsOne", 3, |h, t, a| two_var(h, t, a, TwoVar::ExistsOne).map(Some)),
            Macro::receiver("exists_one", 3, |h, t, a| two_var(h, t, a, TwoVar::ExistsOne).map(Some)),
            Macro::receiver("transformList", 3, |h, t, a| two_var(h, t, a, TwoVar::TransformList).map(Some)),
            Macro::receiver("transformList", 4, |h, t, a| two_var(h, t, a, TwoVar::TransformList).map(Some)),
            Macro::receiver("transformMap", 3, |h, t, a| two_var(h, t, a, TwoVar::TransformMap).map(Some)),
            Macro::receiver("transformMap", 4, |h, t, a| two_var(h, t, a, TwoVar::TransformMap).map(Some)),
            Macro::receiver("transformMapEntry", 3, |h, t, a| two_var(h, t, a, TwoVar::TransformMapEntry).map(Some)),
            Macro::receiver("transformMapEntry", 4, |h, t, a| two_var(h, t, a, TwoVar::TransformMapEntry).map(Some)),
            Macro::receiver("optMap", 2, |h, t, a| opt_map(h, t, a, false).map(Some)),
            Macro::receiver("optFlatMap", 2, |h, t, a| opt_map(h, t, a, true).map(Some)),
            Macro::receiver("sortBy", 2, |h, t, a| sort_by(h, t, a).map(Some)),
        ];
        for m in macros {
            // The table above has no duplicates and none of the standard macros' shapes.
            let _ = env.add_macro(m);
        }
        env
    })
}

/// The most syntax errors cel-go's parser reports (its default `errorReportingLimit`).
pub const ERROR_REPORTING_LIMIT: usize = 100;

/// Parses `source` with optional syntax and backtick-escaped identifiers on, as Kubernetes does.
/// Deeply nested expressions are parsed on a thread with a large stack: the parser recurses per level.
pub fn parse(source: &str) -> Result<Parsed, Vec<CelError>> {
    let size = source.chars().count();
    if size > MAX_CODE_POINTS {
        let message = format!("expression code point size exceeds limit: size: {size}, limit {MAX_CODE_POINTS}");
        return Err(vec![CelError { offset: NO_LOCATION, message }]);
    }
    if nesting(source) > SHALLOW {
        return on_big_stack(|| parse_here(source));
    }
    parse_here(source)
}

/// Nesting up to this depth is handled on the caller's stack.
pub const SHALLOW: usize = 8;

/// The deepest nesting of brackets and unary operators in a source text (a cheap upper bound of the
/// parser's recursion).
fn nesting(source: &str) -> usize {
    let (mut depth, mut max, mut run) = (0usize, 0usize, 0usize);
    for b in source.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth + run);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'!' | b'-' => {
                run += 1;
                max = max.max(depth + run);
            }
            b' ' => {}
            _ => run = 0,
        }
    }
    max
}

/// Runs `f` on a thread with a 256 MiB stack (reserved, not committed), for deep recursion.
pub fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new().stack_size(256 << 20).spawn_scoped(scope, f);
        match handle {
            Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(e) => panic!("cannot start a thread for a deeply nested expression: {e}"),
        }
    })
}

/// The deepest nesting of an expression the parser, the checker and the evaluator accept (cel-go's
/// parser limit): anything deeper is refused rather than risking the stack.
pub const MAX_NESTING: usize = 250;

/// The depth of an expression tree.
pub fn depth(expr: &IdedExpr) -> usize {
    let below = match &expr.expr {
        Expr::Call(call) => call.target.iter().map(|t| depth(t)).chain(call.args.iter().map(depth)).max().unwrap_or(0),
        Expr::Comprehension(c) => {
            [&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result].into_iter().map(depth).max().unwrap_or(0)
        }
        Expr::List(list) => list.elements.iter().map(depth).max().unwrap_or(0),
        Expr::Select(select) => depth(&select.operand),
        Expr::Map(_) | Expr::Struct(_) => children(expr).into_iter().map(depth).max().unwrap_or(0),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => 0,
    };
    1 + below
}

fn parse_here(source: &str) -> Result<Parsed, Vec<CelError>> {
    let parser = env().parser().enable_optional_syntax(true).enable_ident_escape_syntax(true).max_recursion_depth(MAX_NESTING as u16);
    match parser.parse_with_source_info(source) {
        Ok((mut expr, info)) => {
            let mut offsets = HashMap::new();
            collect_offsets(&expr, &info, &mut offsets);
            let mut root_scoped = std::collections::HashSet::new();
            resolve_root_scoped(&mut expr, &mut Vec::new(), &mut root_scoped);
            Ok(Parsed { expr, offsets, root_scoped })
        }
        // cel-go stops at its recursion limit with one error and no location, where the parser here goes
        // on and reports what its recovery makes of the rest.
        Err(errors) if errors.errors.iter().any(|e| e.msg.contains("Recursion limit of")) => {
            Err(vec![CelError { offset: NO_LOCATION, message: format!("expression recursion limit exceeded: {MAX_NESTING}") }])
        }
        Err(errors) => {
            // The parser here also reports the incomplete parse trees its error recovery leaves
            // (`Incomplete `ExprContext` for `_?_:_` expression!`); cel-go's visitor says nothing of them.
            let syntax = errors.errors.iter().any(|e| e.msg.starts_with("Syntax error:"));
            // cel-go reports at most `ERROR_REPORTING_LIMIT` syntax errors, then one more saying so at the
            // next error's place, and stops: garbage input yields an error per character, and shown each
            // with its source line they would take memory quadratic in the expression's length.
            let mut mismatched = Vec::new();
            let mut out: Vec<CelError> = errors
                .errors
                .iter()
                .filter(|e| !(syntax && e.msg.starts_with("Incomplete `")))
                .take(ERROR_REPORTING_LIMIT + 1)
                .map(|e| {
                    let offset = offset_of(source, e.pos.0, e.pos.1);
                    let message = expecting_as_cel_go(&e.msg, source, offset, &mismatched);
                    if message.starts_with("Syntax error: mismatched input ") {
                        mismatched.push(offset);
                    }
                    CelError { offset, message }
                })
                .collect();
            if let Some(last) = out.get_mut(ERROR_REPORTING_LIMIT) {
                last.message = format!("More than {ERROR_REPORTING_LIMIT} syntax errors");
            }
            Err(out)
        }
    }
}

/// A `mismatched input` error as cel-go words it. After a complete operand, the parser here lists
/// the operators that could continue it too (`expecting {<EOF>, '==', '!=', ...}`); cel-go's ANTLR
/// runtime names only the token the enclosing construct must have next: `<EOF>` at the top, `')'`
/// in parentheses and argument lists, `']'` in a list or an index, `':'` after a map key or in a
/// conditional before its `:`, `'}'` after a map or message value. No set of cel-go's holds a binary
/// operator, so one is the sign. `earlier` holds the offsets of the mismatched inputs reported
/// before: error recovery gives up the construct each was in.
fn expecting_as_cel_go(message: &str, source: &str, offset: usize, earlier: &[usize]) -> String {
    let Some((head, set)) = message.split_once(" expecting {") else { return message.to_string() };
    if !head.starts_with("Syntax error: mismatched input ") || !set.contains("'=='") {
        return message.to_string();
    }
    format!("{head} expecting {}", closer_at(source, offset.min(source.len()), earlier))
}

/// The token the innermost construct open at `offset` ends with, from the tokens before it; the
/// construct open at each of the `abandoned` offsets is closed there.
fn closer_at(source: &str, offset: usize, abandoned: &[usize]) -> &'static str {
    // An open bracket, or a conditional's `?` waiting for its `:`; a map's `{` records whether a key
    // or a value is being read.
    #[derive(PartialEq)]
    enum Open {
        Paren,
        Bracket,
        Brace { value: bool },
        Question,
    }
    let bytes = &source.as_bytes()[..offset];
    let mut stack: Vec<Open> = Vec::new();
    // Whether the previous token ends an operand (so that a `?` after it is a conditional, not the
    // `?` of optional syntax).
    let mut operand = false;
    let mut i = 0;
    let mut abandoned = abandoned.iter().copied().filter(|&a| a < offset).peekable();
    while i < bytes.len() {
        while abandoned.next_if(|&a| a <= i).is_some() {
            stack.pop();
        }
        let c = bytes[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => {
                i += 1;
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\'' | b'"' => {
                i = skip_string(bytes, i);
                operand = true;
                continue;
            }
            b'`' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'`' {
                    i += 1;
                }
                i += 1;
                operand = true;
                continue;
            }
            b'(' => stack.push(Open::Paren),
            b'[' => stack.push(Open::Bracket),
            b'{' => stack.push(Open::Brace { value: false }),
            b')' | b']' | b'}' => {
                let wanted = |o: &Open| match c {
                    b')' => *o == Open::Paren,
                    b']' => *o == Open::Bracket,
                    _ => matches!(o, Open::Brace { .. }),
                };
                if let Some(at) = stack.iter().rposition(wanted) {
                    stack.truncate(at);
                }
                operand = true;
                i += 1;
                continue;
            }
            b'?' if operand => stack.push(Open::Question),
            b':' => match stack.last_mut() {
                Some(Open::Question) => {
                    stack.pop();
                }
                Some(Open::Brace { value }) => *value = true,
                _ => {}
            },
            b',' => {
                if let Some(Open::Brace { value }) = stack.last_mut() {
                    *value = false;
                }
            }
            c if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 => {
                // An identifier or a number; a string prefix (`r'...'`, `b"..."`) is read with its string.
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80) {
                    i += 1;
                }
                if i < bytes.len() && matches!(bytes[i], b'\'' | b'"') {
                    i = skip_string(bytes, i);
                }
                operand = true;
                continue;
            }
            _ => {}
        }
        operand = false;
        i += 1;
    }
    match stack.last() {
        None => "<EOF>",
        Some(Open::Paren) => "')'",
        Some(Open::Bracket) => "']'",
        Some(Open::Brace { value: false }) | Some(Open::Question) => "':'",
        Some(Open::Brace { value: true }) => "'}'",
    }
}

/// The offset after the string literal that starts at `i` (single, double or triple quoted; an
/// unterminated one runs to the end).
fn skip_string(bytes: &[u8], i: usize) -> usize {
    let quote = bytes[i];
    let triple = bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote);
    let mut j = if triple { i + 3 } else { i + 1 };
    while j < bytes.len() {
        if bytes[j] == b'\\' {
            j += 2;
        } else if triple {
            if bytes[j] == quote && bytes.get(j + 1) == Some(&quote) && bytes.get(j + 2) == Some(&quote) {
                return j + 3;
            }
            j += 1;
        } else if bytes[j] == quote || bytes[j] == b'\n' {
            return j + 1;
        } else {
            j += 1;
        }
    }
    bytes.len()
}

/// The byte offset of a 1-based line and column (the column counted in characters).
fn offset_of(source: &str, line: isize, column: isize) -> usize {
    let mut start = 0usize;
    for _ in 1..line.max(1) {
        match source[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return source.len(),
        }
    }
    let skip = usize::try_from(column - 1).unwrap_or(0);
    source[start..].char_indices().nth(skip).map_or(source.len(), |(i, _)| start + i)
}

fn collect_offsets(expr: &IdedExpr, info: &cel::common::ast::SourceInfo, out: &mut HashMap<u64, usize>) {
    if let Some((start, _)) = info.offset_for(expr.id) {
        out.insert(expr.id, start as usize);
    }
    for child in children(expr) {
        collect_offsets(child, info, out);
    }
}

/// Resolves the names a leading `.` scopes to the root (`.self.group`, `.size(x)`): cel-go looks them up
/// among the declarations and functions only, never among the variables of the comprehensions around
/// them. A name no comprehension variable shadows is the declaration's own, and loses its dot; one that a
/// comprehension variable shadows keeps it, so that it stays an undeclared reference (`.x` inside
/// `all(x, …)`), as cel-go reports it.
fn resolve_root_scoped(expr: &mut IdedExpr, locals: &mut Vec<String>, root_scoped: &mut std::collections::HashSet<u64>) {
    match &mut expr.expr {
        Expr::Ident(name) => {
            if let Some(bare) = name.strip_prefix('.') {
                if !locals.iter().any(|l| l == bare) {
                    *name = bare.to_string();
                    root_scoped.insert(expr.id);
                }
            }
        }
        Expr::Call(call) => {
            if call.target.is_none() {
                if let Some(bare) = call.func_name.strip_prefix('.') {
                    call.func_name = bare.to_string();
                }
            }
            if let Some(target) = call.target.as_deref_mut() {
                resolve_root_scoped(target, locals, root_scoped);
            }
            call.args.iter_mut().for_each(|a| resolve_root_scoped(a, locals, root_scoped));
        }
        Expr::Comprehension(c) => {
            resolve_root_scoped(&mut c.iter_range, locals, root_scoped);
            resolve_root_scoped(&mut c.accu_init, locals, root_scoped);
            let pushed = 2 + usize::from(c.iter_var2.is_some());
            locals.push(c.iter_var.clone());
            locals.extend(c.iter_var2.clone());
            locals.push(c.accu_var.clone());
            resolve_root_scoped(&mut c.loop_cond, locals, root_scoped);
            resolve_root_scoped(&mut c.loop_step, locals, root_scoped);
            resolve_root_scoped(&mut c.result, locals, root_scoped);
            locals.truncate(locals.len() - pushed);
        }
        Expr::List(list) => list.elements.iter_mut().for_each(|e| resolve_root_scoped(e, locals, root_scoped)),
        Expr::Map(map) => map.entries.iter_mut().for_each(|e| match &mut e.expr {
            EntryExpr::MapEntry(m) => {
                resolve_root_scoped(&mut m.key, locals, root_scoped);
                resolve_root_scoped(&mut m.value, locals, root_scoped);
            }
            EntryExpr::StructField(f) => resolve_root_scoped(&mut f.value, locals, root_scoped),
        }),
        Expr::Struct(s) => s.entries.iter_mut().for_each(|e| match &mut e.expr {
            EntryExpr::MapEntry(m) => resolve_root_scoped(&mut m.value, locals, root_scoped),
            EntryExpr::StructField(f) => resolve_root_scoped(&mut f.value, locals, root_scoped),
        }),
        Expr::Select(select) => resolve_root_scoped(&mut select.operand, locals, root_scoped),
        Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// The names of a select chain on an identifier, root first (`a.b.c` as `["a", "b", "c"]`); `None`
/// for any other expression, or a chain with a presence test (`has(a.b)`).
pub(crate) fn dotted_names(expr: &IdedExpr) -> Option<Vec<&str>> {
    let mut segments = Vec::new();
    let mut node = expr;
    loop {
        match &node.expr {
            Expr::Select(s) if !s.test => {
                segments.push(s.field.as_str());
                node = &s.operand;
            }
            Expr::Ident(root) => {
                segments.push(root.as_str());
                segments.reverse();
                return Some(segments);
            }
            _ => return None,
        }
    }
}

/// The direct sub-expressions of a node.
pub fn children(expr: &IdedExpr) -> Vec<&IdedExpr> {
    match &expr.expr {
        Expr::Call(call) => call.target.iter().map(|t| &**t).chain(call.args.iter()).collect(),
        Expr::Comprehension(c) => vec![&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result],
        Expr::List(list) => list.elements.iter().collect(),
        Expr::Map(map) => map
            .entries
            .iter()
            .flat_map(|e| match &e.expr {
                EntryExpr::MapEntry(m) => vec![&m.key, &m.value],
                EntryExpr::StructField(f) => vec![&f.value],
            })
            .collect(),
        Expr::Select(select) => vec![&select.operand],
        Expr::Struct(s) => s
            .entries
            .iter()
            .map(|e| match &e.expr {
                EntryExpr::MapEntry(m) => &m.value,
                EntryExpr::StructField(f) => &f.value,
            })
            .collect(),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => Vec::new(),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TwoVar {
    All,
    Exists,
    ExistsOne,
    TransformList,
    TransformMap,
    TransformMapEntry,
}

fn call(h: &mut MacroExprHelper<'_>, name: &str, args: Vec<IdedExpr>) -> IdedExpr {
    h.next_expr(Expr::Call(CallExpr { func_name: name.to_string(), target: None, args }))
}

fn ident(h: &mut MacroExprHelper<'_>, name: &str) -> IdedExpr {
    h.next_expr(Expr::Ident(name.to_string()))
}

fn literal(h: &mut MacroExprHelper<'_>, value: LiteralValue) -> IdedExpr {
    h.next_expr(Expr::Literal(value))
}

fn simple_name(h: &MacroExprHelper<'_>, expr: &IdedExpr) -> Result<String, ParseError> {
    match &expr.expr {
        Expr::Ident(name) => Ok(name.clone()),
        _ => Err(h.new_error(expr.id, "argument must be a simple name")),
    }
}

/// Expands the two-variable comprehensions of cel-go's comprehensions extension.
fn two_var(
    h: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
    kind: TwoVar,
) -> Result<IdedExpr, ParseError> {
    let first = simple_name(h, &args[0])?;
    let second = simple_name(h, &args[1])?;
    if first == ACCUMULATOR || second == ACCUMULATOR {
        return Err(h.new_error(args[0].id, "iteration variable overwrites accumulator variable"));
    }
    if first == second {
        return Err(h.new_error(args[1].id, "duplicate variable name"));
    }
    let body = args.pop().unwrap_or_default();
    let filter = if args.len() == 3 { args.pop() } else { None };
    let accu = |h: &mut MacroExprHelper<'_>| ident(h, ACCUMULATOR);
    let (init, cond, step, result) = match kind {
        TwoVar::All => {
            let a = accu(h);
            let cond = call(h, "@not_strictly_false", vec![a]);
            let a = accu(h);
            let step = call(h, "_&&_", vec![a, body]);
            (literal(h, LiteralValue::Boolean(true.into())), cond, step, accu(h))
        }
        TwoVar::Exists => {
            let a = accu(h);
            let not = call(h, "!_", vec![a]);
            let cond = call(h, "@not_strictly_false", vec![not]);
            let a = accu(h);
            let step = call(h, "_||_", vec![a, body]);
            (literal(h, LiteralValue::Boolean(false.into())), cond, step, accu(h))
        }
        TwoVar::ExistsOne => {
            let a = accu(h);
            let one = literal(h, LiteralValue::Int(1.into()));
            let plus = call(h, "_+_", vec![a, one]);
            let a = accu(h);
            let step = call(h, "_?_:_", vec![body, plus, a]);
            let a = accu(h);
            let one = literal(h, LiteralValue::Int(1.into()));
            let result = call(h, "_==_", vec![a, one]);
            let cond = literal(h, LiteralValue::Boolean(true.into()));
            (literal(h, LiteralValue::Int(0.into())), cond, step, result)
        }
        TwoVar::TransformList | TwoVar::TransformMap | TwoVar::TransformMapEntry => {
            let a = accu(h);
            let step = match kind {
                TwoVar::TransformList => {
                    let item = h.next_expr(Expr::List(ListExpr::new(vec![body])));
                    call(h, "_+_", vec![a, item])
                }
                TwoVar::TransformMap => {
                    let key = ident(h, &first);
                    call(h, "cel.@mapInsert", vec![a, key, body])
                }
                _ => call(h, "cel.@mapInsert", vec![a, body]),
            };
            let step = match filter {
                Some(filter) => {
                    let a = accu(h);
                    call(h, "_?_:_", vec![filter, step, a])
                }
                None => step,
            };
            let init = if kind == TwoVar::TransformList {
                h.next_expr(Expr::List(ListExpr::new(Vec::new())))
            } else {
                h.next_expr(Expr::Map(MapExpr { entries: Vec::new() }))
            };
            let cond = literal(h, LiteralValue::Boolean(true.into()));
            (init, cond, step, accu(h))
        }
    };
    let range = target.take().unwrap_or_default();
    Ok(h.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range: range,
        iter_var: first,
        iter_var2: Some(second),
        accu_var: ACCUMULATOR.to_string(),
        accu_init: init,
        loop_cond: cond,
        loop_step: step,
        result,
    }))))
}

/// `opt.optMap(v, e)` is `opt.hasValue() ? optional.of(e with v = opt.value()) : optional.none()`;
/// `optFlatMap` leaves out the `optional.of`.
fn opt_map(
    h: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
    flat: bool,
) -> Result<IdedExpr, ParseError> {
    let name = simple_name(h, &args[0])?;
    let body = args.pop().unwrap_or_default();
    let target = target.take().unwrap_or_default();
    let copy = renumber(h, &target);
    let has_value = h.next_expr(Expr::Call(CallExpr { func_name: "hasValue".into(), target: Some(Box::new(target)), args: Vec::new() }));
    let value = h.next_expr(Expr::Call(CallExpr { func_name: "value".into(), target: Some(Box::new(copy)), args: Vec::new() }));
    // A comprehension over nothing binds the variable as its accumulator: cel-go's `cel.bind`.
    let empty = h.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let cond = literal(h, LiteralValue::Boolean(false.into()));
    let step = ident(h, &name);
    let bound = h.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range: empty,
        iter_var: "#unused".into(),
        iter_var2: None,
        accu_var: name,
        accu_init: value,
        loop_cond: cond,
        loop_step: step,
        result: body,
    })));
    let some = if flat { bound } else { call(h, "optional.of", vec![bound]) };
    let none = call(h, "optional.none", Vec::new());
    Ok(call(h, "_?_:_", vec![has_value, some, none]))
}

/// `list.sortBy(e, key)`, as cel-go's lists extension expands it: the list bound once to
/// `@__sortBy_input__` (a comprehension over nothing, cel-go's `cel.bind`), then
/// `@__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key))`.
fn sort_by(h: &mut MacroExprHelper<'_>, target: &mut Option<IdedExpr>, args: &mut Vec<IdedExpr>) -> Result<IdedExpr, ParseError> {
    let list = target.take().unwrap_or_default();
    if matches!(list.expr, Expr::Literal(_) | Expr::Map(_) | Expr::Struct(_)) {
        return Err(h.new_error(list.id, "sortBy can only be applied to a list, identifier, comprehension, call or select expression"));
    }
    // cel-go's map expansion: the variable must be a name other than the accumulator's.
    let name = match &args[0].expr {
        Expr::Ident(name) => name.clone(),
        _ => return Err(h.new_error(args[0].id, "argument is not an identifier")),
    };
    if name == ACCUMULATOR || name == "__result__" {
        return Err(h.new_error(args[0].id, "iteration variable overwrites accumulator variable"));
    }
    let key = args.pop().unwrap_or_default();
    let input = ident(h, SORT_BY_INPUT);
    let init = h.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let cond = literal(h, LiteralValue::Boolean(true.into()));
    let accu = ident(h, ACCUMULATOR);
    let item = h.next_expr(Expr::List(ListExpr::new(vec![key])));
    let step = call(h, "_+_", vec![accu, item]);
    let result = ident(h, ACCUMULATOR);
    let keys = h.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range: input,
        iter_var: name,
        iter_var2: None,
        accu_var: ACCUMULATOR.to_string(),
        accu_init: init,
        loop_cond: cond,
        loop_step: step,
        result,
    })));
    let receiver = ident(h, SORT_BY_INPUT);
    let sorted =
        h.next_expr(Expr::Call(CallExpr { func_name: "@sortByAssociatedKeys".into(), target: Some(Box::new(receiver)), args: vec![keys] }));
    let empty = h.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let never = literal(h, LiteralValue::Boolean(false.into()));
    let step = ident(h, SORT_BY_INPUT);
    Ok(h.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range: empty,
        iter_var: "#unused".into(),
        iter_var2: None,
        accu_var: SORT_BY_INPUT.to_string(),
        accu_init: list,
        loop_cond: never,
        loop_step: step,
        result: sorted,
    }))))
}

/// A copy of `expr` whose nodes have fresh ids.
fn renumber(h: &mut MacroExprHelper<'_>, expr: &IdedExpr) -> IdedExpr {
    let inner = match &expr.expr {
        Expr::Call(c) => Expr::Call(CallExpr {
            func_name: c.func_name.clone(),
            target: c.target.as_ref().map(|t| Box::new(renumber(h, t))),
            args: c.args.iter().map(|a| renumber(h, a)).collect(),
        }),
        Expr::Select(s) => {
            let operand = renumber(h, &s.operand);
            Expr::Select(cel::common::ast::SelectExpr { operand: Box::new(operand), field: s.field.clone(), test: s.test })
        }
        Expr::List(l) => {
            Expr::List(ListExpr::new_with_optionals(l.elements.iter().map(|e| renumber(h, e)).collect(), l.optional_indices.clone()))
        }
        Expr::Map(m) => Expr::Map(MapExpr {
            entries: m
                .entries
                .iter()
                .map(|e| {
                    let expr = match &e.expr {
                        EntryExpr::MapEntry(me) => EntryExpr::MapEntry(MapEntryExpr {
                            key: renumber(h, &me.key),
                            value: renumber(h, &me.value),
                            optional: me.optional,
                        }),
                        other => other.clone(),
                    };
                    cel::common::ast::IdedEntryExpr { id: e.id, expr }
                })
                .collect(),
        }),
        Expr::Comprehension(c) => Expr::Comprehension(Box::new(ComprehensionExpr {
            iter_range: renumber(h, &c.iter_range),
            iter_var: c.iter_var.clone(),
            iter_var2: c.iter_var2.clone(),
            accu_var: c.accu_var.clone(),
            accu_init: renumber(h, &c.accu_init),
            loop_cond: renumber(h, &c.loop_cond),
            loop_step: renumber(h, &c.loop_step),
            result: renumber(h, &c.result),
        })),
        other => other.clone(),
    };
    h.next_expr(inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leading_dot_names_a_declaration_unless_a_comprehension_variable_shadows_it() {
        let parsed = parse(".self.kind == 'S' && .size(self.names) > 0 && self.names.all(n, .n != .self.kind)").unwrap();
        let mut idents = Vec::new();
        let mut calls = Vec::new();
        fn walk<'a>(e: &'a IdedExpr, idents: &mut Vec<(&'a str, u64)>, calls: &mut Vec<&'a str>) {
            match &e.expr {
                Expr::Ident(name) => idents.push((name.as_str(), e.id)),
                Expr::Call(c) => calls.push(c.func_name.as_str()),
                _ => {}
            }
            children(e).into_iter().for_each(|c| walk(c, idents, calls));
        }
        walk(&parsed.expr, &mut idents, &mut calls);
        let names: Vec<&str> = idents.iter().map(|(n, _)| *n).collect();
        assert!(names.contains(&"self") && names.contains(&".n") && !names.contains(&".self"), "{names:?}");
        assert!(calls.contains(&"size") && !calls.contains(&".size"), "{calls:?}");
        // The first `self` was written `.self`; the one in `self.names` was not.
        let rooted: Vec<u64> =
            idents.iter().filter(|(n, _)| *n == "self").map(|(_, id)| *id).filter(|id| parsed.root_scoped.contains(id)).collect();
        assert_eq!(rooted.len(), 2, "{idents:?}");
    }

    #[test]
    fn errors_are_located_and_displayed_as_cel_go_does() {
        let source = "self.a == 'é' &&";
        let errors = parse(source).unwrap_err();
        expect_test::expect![[r#"
            ERROR: <input>:1:17: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
             | self.a == 'é' &&
             | ...........．....^"#]]
        .assert_eq(&display_all(&errors, source));
        // Every character of more than one UTF-8 byte is a full-width dot, or a full-width caret
        // when the error is at it (an API server's words, 1.37).
        let source = "'é' \u{15e93}";
        let errors = parse(source).unwrap_err();
        expect_test::expect![[r#"
            ERROR: <input>:1:5: Syntax error: token recognition error at: '𕺓'
             | 'é' 𕺓
             | .．..＾"#]]
        .assert_eq(&errors[0].display(source));
        let has = parse("has(self)").unwrap_err();
        assert_eq!(has[0].message, "invalid argument to has() macro");
    }

    #[test]
    fn a_mismatched_input_expects_what_cel_go_expects() {
        // cel-go 0.29's words for each (a Go probe of `Env.Parse`): the token the enclosing
        // construct needs, not the operators that could continue the operand; and no word on the
        // incomplete trees the recovery leaves.
        let cases = [
            ("a b c", "1:3: Syntax error: mismatched input 'b' expecting <EOF>"),
            ("1 ? 2", "1:6: Syntax error: mismatched input '<EOF>' expecting ':'"),
            (
                "self.a[",
                "1:8: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', '?', 'true', 'false', 'null', \
                 NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
            ),
            ("f(a ), b)", "1:6: Syntax error: mismatched input ',' expecting <EOF>"),
            (
                "a.map( 1x, x * 2)",
                "1:9: Syntax error: mismatched input 'x' expecting ')'; 1:17: Syntax error: extraneous input ')' expecting <EOF>",
            ),
            ("{'k' 1: v}", "1:6: Syntax error: extraneous input '1' expecting ':'"),
            (
                "( 1a + b) * c",
                "1:4: Syntax error: mismatched input 'a' expecting ')'; 1:9: Syntax error: mismatched input ')' expecting <EOF>",
            ),
        ];
        for (source, want) in cases {
            let got = parse(source).unwrap_err();
            let got: Vec<String> = got
                .iter()
                .map(|e| {
                    let shown = e.display(source);
                    shown.lines().next().unwrap_or_default().trim_start_matches("ERROR: <input>:").to_string()
                })
                .collect();
            assert_eq!(got.join("; "), want, "{source}");
        }
    }

    #[test]
    fn kubernetes_macros_expand() {
        for source in [
            "self.all(k, v, k == v)",
            "self.exists(i, v, v > 1)",
            "self.transformMap(k, v, v + 1)",
            "self.transformList(i, v, i > 0, v)",
            "self.?x.optMap(v, v + 1)",
            "[1].map(x, x > 0, x * 2)",
            "[3, 1].sortBy(x, -x)",
        ] {
            let parsed = parse(source).unwrap_or_else(|e| panic!("{source}: {e:?}"));
            assert!(!parsed.offsets.is_empty());
        }
        assert_eq!(parse("self.all(k, k, true)").unwrap_err()[0].message, "duplicate variable name");
    }

    #[test]
    fn sort_by_refuses_what_cel_go_refuses() {
        let message = |source: &str| parse(source).unwrap_err().into_iter().map(|e| e.message).collect::<Vec<_>>().join("; ");
        assert_eq!(
            message("{'a': 1}.sortBy(k, k)"),
            "sortBy can only be applied to a list, identifier, comprehension, call or select expression"
        );
        assert_eq!(message("[1].sortBy(1, 1)"), "argument is not an identifier");
        assert_eq!(message("[1].sortBy(__result__, 1)"), "iteration variable overwrites accumulator variable");
    }
}
