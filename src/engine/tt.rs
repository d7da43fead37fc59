//! The transposition table: results of searched positions, by hash, shared by the midgame
//! search and the exact solver.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::Selectivity;
use crate::Square;

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The true value is at least the score (the search failed high).
    Lower,
    /// The true value is at most the score (the search failed low).
    Upper,
    /// The score is the true value.
    Exact,
}

/// A stored search result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The position's full hash (the table index uses only its low bits).
    key: u64,
    /// The score from the side to move's point of view.
    pub(crate) score: i16,
    /// How far the search looked: [`Entry::SOLVED`] for a solve to the end.
    pub(crate) depth: u8,
    /// How selective that search was ([`Selectivity::NONE`]: full width, and for a solve,
    /// exact). A search may use an entry at least as sure as itself.
    pub(crate) selectivity: Selectivity,
    /// What `score` means.
    pub(crate) bound: Bound,
    /// The best (or refuting) move found, if any. Always check it is legal before use: two
    /// positions may share a hash.
    pub(crate) best: Option<Square>,
    /// The search generation that wrote it.
    generation: u8,
}

impl Entry {
    /// The depth of an entry written by the exact solver: valid at any depth.
    pub(crate) const SOLVED: u8 = u8::MAX;

    /// Packs the entry into two words: the key, then (from bit 0) score, depth, bound,
    /// best move (+1, 0 for none), generation, selectivity and a set bit 63 marking a used
    /// slot.
    fn pack(self) -> [u64; 2] {
        let bound = match self.bound {
            Bound::Lower => 0,
            Bound::Upper => 1,
            Bound::Exact => 2,
        };
        let best = self.best.map_or(0, |square| square.index() as u64 + 1);
        let data = u64::from(self.score as u16)
            | u64::from(self.depth) << 16
            | bound << 24
            | best << 26
            | u64::from(self.generation) << 40
            | u64::from(self.selectivity.index()) << 48
            | 1 << 63;
        [self.key, data]
    }

    /// The entry in a slot, if the slot is used.
    fn unpack(slot: [u64; 2]) -> Option<Entry> {
        let [key, data] = slot;
        if data >> 63 == 0 {
            return None;
        }
        let best = (data >> 26) & 0x1ff;
        Some(Entry {
            key,
            score: data as u16 as i16,
            depth: (data >> 16) as u8,
            selectivity: Selectivity::from_index(((data >> 48) & 7) as u8),
            bound: match (data >> 24) & 3 {
                0 => Bound::Lower,
                1 => Bound::Upper,
                _ => Bound::Exact,
            },
            best: (best > 0).then(|| Square::from_index((best - 1) as u8)),
            generation: (data >> 40) as u8,
        })
    }
}

/// Entries per bucket: a probe looks at all of them, a store replaces the least useful.
const BUCKET: usize = 4;

/// One slot: the key XOR the data, then the data. Threads read and write slots without
/// locks; a slot torn by two writers (one word from each) fails the key check and is read as
/// a miss, so a probe never returns another position's entry.
type Slot = [AtomicU64; 2];

/// `len` zeroed slots, or `None` if the system refuses the memory. Zeroed memory comes
/// from the system untouched (pages are mapped as they are first written), which a
/// `vec![...]` would also give, but only this way is a refusal not an abort.
fn zeroed_slots(len: usize) -> Option<Vec<Slot>> {
    let layout = std::alloc::Layout::array::<Slot>(len).ok()?;
    if layout.size() == 0 {
        return Some(Vec::new());
    }
    // SAFETY: the layout has a non-zero size; the memory is owned by the Vec with the same
    // layout (length and capacity `len`, the element's alignment), and all-zero bytes are
    // valid `AtomicU64` values.
    unsafe {
        let pointer = std::alloc::alloc_zeroed(layout).cast::<Slot>();
        (!pointer.is_null()).then(|| Vec::from_raw_parts(pointer, len, len))
    }
}

/// A fixed-size table of `Entry`, in buckets indexed by the low bits of the hash, shared by
/// the threads of a parallel search (probes and stores take `&self`).
///
/// A store prefers, in order: the same position, an empty slot, an entry from an older search
/// generation, then the shallowest entry of the bucket. Slots are two words each, all zero
/// when empty, so a new table is zeroed memory the system hands out lazily.
#[derive(Debug)]
pub struct TranspositionTable {
    slots: Vec<Slot>,
    /// Number of buckets minus one: the bucket index mask.
    mask: usize,
    generation: u8,
    /// Whether anything was stored since the table was made or cleared.
    dirty: AtomicBool,
}

impl TranspositionTable {
    /// A table of about `megabytes` MiB (rounded down to a power of two of buckets, at least
    /// one bucket). Memory the system refuses is not fatal: the table halves until it gets
    /// what it asks for (see `TranspositionTable::bytes` for what it got).
    pub fn new(megabytes: usize) -> TranspositionTable {
        let bytes = megabytes.clamp(1, usize::MAX >> 21) << 20;
        let mut buckets = 1 << (bytes / (BUCKET * size_of::<Slot>())).max(1).ilog2();
        let slots = loop {
            match zeroed_slots(buckets * BUCKET) {
                Some(slots) => break slots,
                None if buckets > 1 => buckets /= 2,
                None => std::alloc::handle_alloc_error(std::alloc::Layout::new::<[Slot; BUCKET]>()),
            }
        };
        TranspositionTable {
            slots,
            mask: buckets - 1,
            generation: 0,
            dirty: AtomicBool::new(false),
        }
    }

    /// The table's size in bytes.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.slots.len() * size_of::<Slot>()
    }

    /// The size in MiB for an exact solve of a position with `empties` empty squares, when
    /// none is asked for: 1 MiB up to 14 empties, doubling with every empty square after,
    /// at most 256 MiB (from 22 empties). The solver fills about that much.
    pub fn megabytes_for_solve(empties: u32) -> usize {
        1 << empties.saturating_sub(14).min(8)
    }

    /// The size in MiB for a search of `time`, when none is asked for: 1 MiB per 16 ms
    /// (about what a search stores in that time here), at most 256 MiB.
    pub fn megabytes_for_time(time: std::time::Duration) -> usize {
        (time.as_millis() / 16).clamp(1, 256) as usize
    }

    /// Starts a new search: older entries become the first to be replaced.
    pub(crate) fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    /// Forgets everything. A table nothing was stored in is left alone: its memory is
    /// still the zeroed pages the system handed out, untouched.
    pub fn clear(&mut self) {
        if *self.dirty.get_mut() {
            for slot in &mut self.slots {
                *slot = [AtomicU64::new(0), AtomicU64::new(0)];
            }
            *self.dirty.get_mut() = false;
        }
    }

    fn bucket(&self, key: u64) -> &[Slot] {
        let start = (key as usize & self.mask) * BUCKET;
        &self.slots[start..start + BUCKET]
    }

    /// The entry in `slot`, if it holds one whole (not torn by two writers).
    #[inline]
    fn read(slot: &Slot) -> Option<Entry> {
        let data = slot[1].load(Ordering::Relaxed);
        let key = slot[0].load(Ordering::Relaxed) ^ data;
        Entry::unpack([key, data])
    }

    /// Asks the processor to bring the bucket of `key` into its cache, so that a probe
    /// soon after does not wait for memory (a probe of a big table is mostly a cache miss):
    /// several misses then overlap instead of coming one after the other.
    #[inline]
    pub(crate) fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket = self.bucket(key).as_ptr().cast::<i8>();
            // SAFETY: a prefetch only hints the cache; it reads nothing and cannot fault.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry for the position with hash `key`, if stored.
    #[inline]
    pub(crate) fn probe(&self, key: u64) -> Option<Entry> {
        self.bucket(key)
            .iter()
            .filter_map(Self::read)
            .find(|entry| entry.key == key)
    }

    /// Stores a result for the position with hash `key`, found by a search `depth` deep
    /// with `selectivity`.
    #[inline]
    pub(crate) fn store(
        &self,
        key: u64,
        score: i32,
        (depth, selectivity): (u8, Selectivity),
        bound: Bound,
        best: Option<Square>,
    ) {
        if !self.dirty.load(Ordering::Relaxed) {
            self.dirty.store(true, Ordering::Relaxed);
        }
        let generation = self.generation;
        let bucket = self.bucket(key);
        let entries: [Option<Entry>; BUCKET] = std::array::from_fn(|i| Self::read(&bucket[i]));
        let victim = entries
            .iter()
            .position(|slot| slot.is_none_or(|entry| entry.key == key))
            .unwrap_or_else(|| {
                // Oldest generation first, then the shallowest search.
                (0..BUCKET)
                    .min_by_key(|&i| {
                        entries[i].map_or((false, 0), |e| (e.generation == generation, e.depth))
                    })
                    .unwrap_or(0)
            });
        if let Some(old) = entries[victim]
            && old.key == key
            && (old.depth, old.selectivity) > (depth, selectivity)
            && old.generation == generation
        {
            return; // keep the deeper result of this search
        }
        let [key, data] = Entry {
            key,
            score: score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            depth,
            selectivity,
            bound,
            best,
            generation,
        }
        .pack();
        bucket[victim][0].store(key ^ data, Ordering::Relaxed);
        bucket[victim][1].store(data, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_work_and_fresh_tables_are_not_cleared() {
        assert_eq!(TranspositionTable::megabytes_for_solve(4), 1);
        assert_eq!(TranspositionTable::megabytes_for_solve(20), 64);
        assert_eq!(TranspositionTable::megabytes_for_solve(60), 256);
        let ms = std::time::Duration::from_millis;
        assert_eq!(TranspositionTable::megabytes_for_time(ms(1000)), 62);
        assert_eq!(TranspositionTable::megabytes_for_time(ms(0)), 1);
        let mut table = TranspositionTable::new(1);
        assert_eq!(table.bytes(), 1 << 20);
        assert!(!*table.dirty.get_mut());
        table.store(5, 1, (1, Selectivity::NONE), Bound::Exact, None);
        assert!(*table.dirty.get_mut());
        table.clear();
        assert!(!*table.dirty.get_mut());
        assert_eq!(table.probe(5), None);
    }

    /// Issue 22.3: a size the system refuses gives a smaller table, not an abort.
    #[test]
    fn regression_22_3_a_refused_size_halves_instead_of_aborting() {
        // 2^44 bytes is more than any machine this runs on lets one process map.
        let table = TranspositionTable::new(1 << 24);
        assert!(table.bytes() < 1 << 44, "{}", table.bytes());
        assert!(table.bytes() >= 1 << 20);
        assert!(table.bytes().is_power_of_two());
        let huge = TranspositionTable::new(usize::MAX);
        assert!(huge.bytes() < 1 << 44);
    }

    #[test]
    fn packing_round_trips() {
        for (score, depth, selectivity, bound, best) in [
            (-32768, 0, Selectivity::MOST, Bound::Lower, None),
            (
                32767,
                255,
                Selectivity::NONE,
                Bound::Exact,
                Some(Square::new(15, 15)),
            ),
            (
                -1,
                7,
                Selectivity::ALL[2],
                Bound::Upper,
                Some(Square::new(0, 0)),
            ),
        ] {
            let entry = Entry {
                key: 0xdead_beef,
                score,
                depth,
                selectivity,
                bound,
                best,
                generation: 200,
            };
            assert_eq!(Entry::unpack(entry.pack()), Some(entry));
        }
        assert_eq!(Entry::unpack([0, 0]), None);
    }

    /// Two threads writing one slot at once can leave one word of each: that reads as a
    /// miss, never as an entry of the wrong position.
    #[test]
    fn a_torn_slot_reads_as_a_miss() {
        let table = TranspositionTable::new(1);
        table.store(9, 5, (3, Selectivity::NONE), Bound::Exact, None);
        let first = table
            .slots
            .iter()
            .position(|slot| slot[1].load(Ordering::Relaxed) != 0);
        let slot = &table.slots[first.unwrap()];
        let other = Entry::unpack([0, slot[1].load(Ordering::Relaxed)])
            .map(|entry| Entry { score: -5, ..entry });
        slot[1].store(other.unwrap().pack()[1], Ordering::Relaxed);
        assert_eq!(table.probe(9), None);
    }

    #[test]
    fn stores_and_probes() {
        let table = TranspositionTable::new(1);
        assert_eq!(table.probe(42), None);
        table.store(
            42,
            -7,
            (5, Selectivity::NONE),
            Bound::Lower,
            Some(Square::new(2, 3)),
        );
        let entry = table.probe(42).unwrap();
        assert_eq!(
            (entry.score, entry.depth, entry.bound),
            (-7, 5, Bound::Lower)
        );
        assert_eq!(entry.best, Some(Square::new(2, 3)));
        // Another key in the same bucket does not disturb it.
        let same_bucket = 42 + (table.mask as u64 + 1);
        table.store(same_bucket, 3, (1, Selectivity::NONE), Bound::Exact, None);
        assert_eq!(table.probe(42).unwrap().score, -7);
        assert_eq!(table.probe(same_bucket).unwrap().score, 3);
    }

    #[test]
    fn a_full_bucket_replaces_the_old_and_the_shallow() {
        let mut table = TranspositionTable::new(1);
        let step = table.mask as u64 + 1;
        for i in 0..BUCKET as u64 {
            table.store(
                7 + i * step,
                0,
                (10 + i as u8, Selectivity::NONE),
                Bound::Exact,
                None,
            );
        }
        table.store(7 + 9 * step, 1, (3, Selectivity::NONE), Bound::Exact, None);
        assert_eq!(table.probe(7), None, "the shallowest went");
        assert!(table.probe(7 + 9 * step).is_some());
        table.new_search();
        table.store(7 + 10 * step, 1, (1, Selectivity::NONE), Bound::Exact, None);
        assert_eq!(
            table.probe(7 + 10 * step).unwrap().depth,
            1,
            "old entries give way"
        );
    }
}
