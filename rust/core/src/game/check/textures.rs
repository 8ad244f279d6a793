//! Rules for the TEXT chunk (FORMAT.md §8, §10): pages a texture entry can name, entries on
//! their page.

use super::Problem;
use crate::codes::Code;
use crate::level::Text;
use crate::limits::MAX_PAGES;

pub(super) fn check_textures(text: &Text, out: &mut Vec<Problem>) {
    let pages = text.pages.len();
    if pages > MAX_PAGES {
        out.push(Problem::error(
            Code::PageCount,
            format!(
                "the level has {pages} texture pages; a texture entry names its page with a signed byte, so at most {MAX_PAGES} (pages 0 to 127) can be shown"
            ),
        ));
    }
    // A flat colour's u0, u1, v0 are its R, G, B, not a rectangle. The rectangle is the one the
    // UV rule reads (u0..=u1, v0..=v1; note 001 §3): what flag bits 3 and 4 (width, height × 2)
    // do to it the notes do not say.
    for (i, entry) in text.entries.iter().enumerate() {
        if entry.is_flat_colour() {
            continue;
        }
        let message = match usize::try_from(entry.page).ok().and_then(|p| text.pages.get(p)) {
            None => format!(
                "texture entry {i} names page {}, but the level has {pages} pages: the game would draw it from texture memory that is no page",
                entry.page
            ),
            Some(page)
                if u32::from(entry.u0.max(entry.u1)) >= page.width
                    || u32::from(entry.v0.max(entry.v1)) >= page.height =>
            {
                format!(
                    "texture entry {i}: its rectangle (u {}–{}, v {}–{}) reaches past the {}×{} pixels of page {}: the game would draw texture memory that is not the page's",
                    entry.u0, entry.u1, entry.v0, entry.v1, page.width, page.height, entry.page
                )
            }
            Some(_) => continue,
        };
        out.push(Problem::error(Code::EntryOutsidePage, message).entry(i));
    }
}
