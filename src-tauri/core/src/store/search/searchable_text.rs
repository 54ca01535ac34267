//! Which text of a part the search index holds, the same on both engines.

use crate::wire::part::PartBody;

/// What a part contributes to search: what a person or the model said, and attachment names.
/// Synthetic text (the Read tool's output of a dropped file, hints) is context for the model,
/// not something said, and is left out.
pub fn searchable_text(body: &PartBody) -> Option<&str> {
    let text = match body {
        PartBody::Text(text) if !text.synthetic.unwrap_or(false) => text.text.as_str(),
        PartBody::Reasoning(reasoning) => reasoning.text.as_str(),
        PartBody::File(file) => file.filename.as_deref()?,
        _ => return None,
    };
    (!text.trim().is_empty()).then_some(text)
}
