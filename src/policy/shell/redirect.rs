//! Redirections: which are harmless (`2>/dev/null`, `2>&1`, `< file`) and
//! which change where output goes (`> file`, `&> file`, `>& file`).

use brush_parser::ast;

use super::Hazard;
use super::parse::Walker;

impl Walker {
    /// The hazards of one redirection (and the commands nested in it).
    pub(super) fn redirect(&mut self, r: &ast::IoRedirect) -> Vec<Hazard> {
        use ast::IoFileRedirectKind as K;
        use ast::IoFileRedirectTarget as T;
        match r {
            ast::IoRedirect::File(_fd, kind, target) => match target {
                T::Fd(_) => Vec::new(),
                T::ProcessSubstitution(_, subshell) => {
                    self.nested_list(&subshell.list);
                    vec![Hazard::ProcessSubstitution]
                }
                T::Duplicate(w) => {
                    let class = self.classify_ast_word(w);
                    let mut hazards = class.hazards;
                    let fd_like = class.word.literal().is_some_and(is_fd_duplication);
                    if !fd_like && matches!(kind, K::DuplicateOutput) {
                        self.out.output_targets.push(class.word.clone());
                    }
                    if !fd_like {
                        // `>&file` writes to a file; `<&$x` is not understood.
                        hazards.push(match kind {
                            K::DuplicateOutput => Hazard::RedirectToFile(w.value.clone()),
                            _ => Hazard::Unmodeled(format!("<&{}", w.value)),
                        });
                    }
                    hazards
                }
                T::Filename(w) => {
                    let class = self.classify_ast_word(w);
                    let mut hazards = class.hazards;
                    if matches!(kind, K::Read) {
                        self.out.input_sources.push(class.word.clone());
                    } else {
                        self.out.output_targets.push(class.word.clone());
                    }
                    let harmless = match kind {
                        K::Read => class.word.literal().is_some_and(readable_source),
                        _ => class.word.literal().is_some_and(harmless_sink),
                    };
                    if !harmless {
                        hazards.push(Hazard::RedirectToFile(w.value.clone()));
                    }
                    hazards
                }
            },
            ast::IoRedirect::OutputAndError(w, _append) => {
                let class = self.classify_ast_word(w);
                self.out.output_targets.push(class.word.clone());
                let mut hazards = class.hazards;
                if !class.word.literal().is_some_and(harmless_sink) {
                    hazards.push(Hazard::RedirectToFile(w.value.clone()));
                }
                hazards
            }
            ast::IoRedirect::HereString(_, w) => self.classify_ast_word(w).hazards,
            ast::IoRedirect::HereDocument(_, doc) => self.heredoc(doc),
        }
    }
}

/// `2>&1`, `>&-`, `3>&1-`: duplicating or closing a descriptor.
fn is_fd_duplication(s: &str) -> bool {
    let digits = s.strip_suffix('-').unwrap_or(s);
    s == "-" || (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// Output targets that do not write a file.
fn harmless_sink(s: &str) -> bool {
    matches!(s, "/dev/null" | "/dev/stdout" | "/dev/stderr")
}

/// Input sources that only read a file: a literal name that is not one of
/// bash's network pseudo-files.
fn readable_source(s: &str) -> bool {
    !s.starts_with("/dev/tcp/") && !s.starts_with("/dev/udp/")
}
