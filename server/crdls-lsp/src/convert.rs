//! The editor features' results (from `crdls-ide`, in byte offsets) in LSP form, and the diagnostics a
//! client holds back as the fix requests they stand for. Positions go through `proto::Lines`, in the
//! negotiated encoding.

use std::collections::HashMap;

use tower_lsp::lsp_types::{
    self as lsp_types, CodeActionKind, CodeActionOrCommand, CompletionItem, CompletionItemKind, CompletionItemTag, CompletionTextEdit,
    DocumentSymbol, Documentation, FoldingRange, Hover, HoverContents, InlayHint, InlayHintLabel, InlayHintTooltip, InsertTextFormat,
    InsertTextMode, MarkupContent, MarkupKind, NumberOrString, SymbolKind, TextEdit, Url, WorkspaceEdit,
};

use crate::proto::Lines;

/// The fixes a client-held diagnostic asks for: its code, its range, and the path (and value to
/// restore) carried in `data`.
pub(crate) fn fix_request<'d>(lines: &Lines<'_>, d: &'d lsp_types::Diagnostic) -> Option<crdls_ide::FixRequest<'d>> {
    if d.source.as_deref() != Some("crdls") {
        return None;
    }
    let Some(NumberOrString::String(code)) = &d.code else { return None };
    let range = crdls_diagnostics::TextRange::new(lines.offset(d.range.start), lines.offset(d.range.end));
    let path = d.data.as_ref().and_then(|data| data.get("path")).and_then(|p| p.as_str());
    let restore = d.data.as_ref().and_then(|data| data.get("restore")).and_then(|p| p.as_str());
    Some(crdls_ide::FixRequest { code, range, path, restore })
}

/// A quick fix in LSP form: its edits to the document at `uri`, and the held diagnostics it fixes
/// (`held` in the order of the fix requests).
pub(crate) fn code_action(
    lines: &Lines<'_>,
    uri: &Url,
    held: &[&lsp_types::Diagnostic],
    action: crdls_ide::CodeAction,
) -> CodeActionOrCommand {
    let edits = action.edits.iter().map(|e| TextEdit { range: lines.range(e.range), new_text: e.new_text.clone() }).collect();
    CodeActionOrCommand::CodeAction(lsp_types::CodeAction {
        title: action.title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(action.fixes.iter().map(|i| held[*i].clone()).collect()),
        edit: Some(WorkspaceEdit { changes: Some(HashMap::from([(uri.clone(), edits)])), ..WorkspaceEdit::default() }),
        is_preferred: action.preferred.then_some(true),
        ..lsp_types::CodeAction::default()
    })
}

/// An outline entry in LSP form.
#[allow(deprecated)] // `DocumentSymbol::deprecated` must still be spelled out.
pub(crate) fn document_symbol(lines: &Lines<'_>, symbol: crdls_ide::Symbol) -> DocumentSymbol {
    let kind = match symbol.kind {
        crdls_ide::SymbolKind::Document => SymbolKind::MODULE,
        crdls_ide::SymbolKind::Object => SymbolKind::OBJECT,
        crdls_ide::SymbolKind::Array => SymbolKind::ARRAY,
        crdls_ide::SymbolKind::Field => SymbolKind::FIELD,
    };
    let range = lines.range(symbol.range);
    // LSP requires the selection to lie inside the range.
    let selection = if symbol.selection.start >= symbol.range.start && symbol.selection.end <= symbol.range.end {
        lines.range(symbol.selection)
    } else {
        lsp_types::Range { start: range.start, end: range.start }
    };
    DocumentSymbol {
        name: if symbol.name.is_empty() { "\"\"".into() } else { symbol.name },
        detail: symbol.detail,
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range: selection,
        children: (!symbol.children.is_empty()).then(|| symbol.children.into_iter().map(|c| document_symbol(lines, c)).collect()),
    }
}

/// A foldable range in LSP form: whole lines.
pub(crate) fn folding_range(lines: &Lines<'_>, range: crdls_diagnostics::TextRange) -> FoldingRange {
    let range = lines.range(range);
    FoldingRange { start_line: range.start.line, end_line: range.end.line, ..FoldingRange::default() }
}

/// A crdls completion item in LSP form: a text edit over the replaced range.
pub(crate) fn completion_item(lines: &Lines<'_>, item: crdls_ide::CompletionItem) -> CompletionItem {
    let kind = match item.kind {
        crdls_ide::CompletionKind::Field => CompletionItemKind::FIELD,
        crdls_ide::CompletionKind::Value => CompletionItemKind::VALUE,
        crdls_ide::CompletionKind::ApiVersion => CompletionItemKind::MODULE,
        crdls_ide::CompletionKind::Kind => CompletionItemKind::CLASS,
        crdls_ide::CompletionKind::Snippet => CompletionItemKind::SNIPPET,
    };
    CompletionItem {
        label: item.label,
        kind: Some(kind),
        detail: item.detail,
        documentation: item.documentation.map(|value| Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value })),
        sort_text: Some(item.sort_text),
        tags: item.deprecated.then(|| vec![CompletionItemTag::DEPRECATED]),
        insert_text_format: Some(if item.snippet { InsertTextFormat::SNIPPET } else { InsertTextFormat::PLAIN_TEXT }),
        // Multi-line inserts carry their own indentation: the editor must not add the line's again.
        insert_text_mode: Some(InsertTextMode::AS_IS),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit { range: lines.range(item.replace), new_text: item.insert_text })),
        ..CompletionItem::default()
    }
}

/// A hover in LSP form: Markdown over the hovered range.
pub(crate) fn hover(lines: &Lines<'_>, hover: crdls_ide::HoverResult) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: hover.markdown }),
        range: Some(lines.range(hover.range)),
    }
}

/// An inlay hint in LSP form: the label after the position, the tooltip in Markdown.
pub(crate) fn inlay_hint(lines: &Lines<'_>, hint: crdls_ide::InlayHint) -> InlayHint {
    InlayHint {
        position: lines.position(hint.offset),
        label: InlayHintLabel::String(hint.label),
        kind: None,
        text_edits: None,
        tooltip: Some(InlayHintTooltip::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: hint.tooltip })),
        padding_left: Some(true),
        padding_right: None,
        data: None,
    }
}
