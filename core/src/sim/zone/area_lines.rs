//! The cache lines of `struct zone`'s `free_area[]`, by the struct's byte offsets.
//!
//! What Linux has (include/linux/mmzone.h, 4.4-5.2): `struct free_area` is
//! `struct list_head free_list[MIGRATE_TYPES]` (16 bytes each on x86_64) followed by
//! `unsigned long nr_free`; `MIGRATE_TYPES` is UNMOVABLE, MOVABLE, RECLAIMABLE, HIGHATOMIC,
//! plus CMA with `CONFIG_CMA` and ISOLATE with `CONFIG_MEMORY_ISOLATION`: 72, 88 or 104
//! bytes. In `struct zone`, `free_area[MAX_ORDER]` starts on a line of its own (after
//! `ZONE_PADDING(_pad1_)`) and is followed by `flags` and `lock`. An entry that is not a
//! multiple of 64 bytes puts an order's list heads and its `nr_free` on different lines, and
//! one order's `nr_free` on the line of the next order's list heads.
//!
//! What the model does: [`FREE_AREA_BYTES`] = 88 (`MIGRATE_TYPES` = 5), the one build size we
//! found on record: Jesper Dangaard Brouer's perf annotation of `del_page_from_free_list()`
//! shows `imul $0x58` for the `free_area[order]` offset (gcc 9.3.1, a Red Hat config; "[PATCH
//! RFC net-next 3/3] mm: make zone->free_area\[order\] access faster", netdev/linux-mm,
//! 2021-02-24, Message-ID 161419301128.2718959.4838557038019199822.stgit@firesoul). The seed's
//! own config is not known (model assumption). Each field a buddy call uses
//! ([`AreaField`]: `free_list[MIGRATE_UNMOVABLE]`'s `next` / `prev`, `nr_free`; page_frag's
//! `GFP_KERNEL` blocks are unmovable) maps to the [`SharedLine`] its offset falls in.
//!
//! What we simplify: one migratetype (the other list heads are never read: their list_empty()
//! checks in the watermark walk stop at the first, non-empty one); the lines of `flags` and
//! `lock` are not shared with `free_area[MAX_ORDER - 1]` here (at 88 bytes `lock` would sit on
//! the line of `free_area[10].nr_free`; the lock word is [`crate::sim::qspinlock`]'s own line).
//!
//! [`AreaField`]: crate::sim::buddy::AreaField

use super::super::buddy::{AreaField, MAX_ORDER};
use super::super::cacheline::SharedLine;

/// `sizeof(struct free_area)` on x86_64 with `MIGRATE_TYPES` = 5 (see the module doc).
pub const FREE_AREA_BYTES: usize = 88;
const MIGRATE_TYPES: usize = (FREE_AREA_BYTES - 8) / 16;
const LINE: usize = 64;
/// Lines `free_area[MAX_ORDER]` spans (it starts on a line boundary).
pub const AREA_LINES: usize = (MAX_ORDER * FREE_AREA_BYTES).div_ceil(LINE);

/// The line of field `f` of `free_area[order]`.
pub fn line_of(order: usize, f: AreaField) -> usize {
    let field = match f {
        AreaField::HeadNext | AreaField::HeadRead => 0,
        AreaField::HeadPrev => 8,
        AreaField::NrFree => 16 * MIGRATE_TYPES,
    };
    (order * FREE_AREA_BYTES + field) / LINE
}

/// The shared lines of `free_area[]`.
pub type AreaLines = [SharedLine; AREA_LINES];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_follows_the_structs_offsets() {
        assert_eq!(MIGRATE_TYPES, 5);
        assert_eq!(AREA_LINES, 16);
        // Order 3 at bytes 264..352: its list heads on line 4, its nr_free (344) on line 5,
        // which also holds order 4's list heads (352); order 2's nr_free (256) is on line 4.
        assert_eq!(line_of(3, AreaField::HeadNext), 4);
        assert_eq!(line_of(3, AreaField::HeadPrev), 4);
        assert_eq!(line_of(3, AreaField::NrFree), 5);
        assert_eq!(line_of(4, AreaField::HeadNext), 5);
        assert_eq!(line_of(2, AreaField::NrFree), 4);
        assert_eq!(line_of(MAX_ORDER - 1, AreaField::NrFree), AREA_LINES - 1);
        // Every order's list heads and nr_free are on two lines.
        let split = (0..MAX_ORDER).filter(|&o| line_of(o, AreaField::HeadNext) != line_of(o, AreaField::NrFree));
        assert_eq!(split.count(), MAX_ORDER);
    }
}
