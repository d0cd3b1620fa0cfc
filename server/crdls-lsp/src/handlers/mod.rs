//! The request and notification handlers, one module per family of LSP methods. Each is a function of
//! the `Backend` and the method's parameters. Notifications that change state do so synchronously,
//! before any `.await`; requests read a snapshot and do their work on a blocking thread.

pub(crate) mod code_action;
pub(crate) mod completion;
pub(crate) mod definition;
pub(crate) mod diagnostic;
pub(crate) mod hover;
pub(crate) mod inlay_hint;
pub(crate) mod lifecycle;
pub(crate) mod outline;
pub(crate) mod text_document;
pub(crate) mod workspace;
