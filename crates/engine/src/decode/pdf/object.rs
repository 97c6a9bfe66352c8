//! What the PDF decoder reads of pdf_oxide's objects itself: a reference followed, a font's
//! name without its subset tag.

use pdf_oxide::PdfDocument;
use pdf_oxide::object::Object;

/// `object` with a reference followed once (`None` for one that cannot be loaded); any other
/// object as it is.
pub(super) fn resolve(doc: &PdfDocument, object: &Object) -> Option<Object> {
    match object {
        Object::Reference(r) => doc.load_object(*r).ok(),
        other => Some(other.clone()),
    }
}

/// A font's name without its subset tag (`ABCDEF+LinLibertineT` is `LinLibertineT`).
pub(super) fn base_name(name: &str) -> &str {
    name.split_once('+').map_or(name, |(_, rest)| rest)
}
