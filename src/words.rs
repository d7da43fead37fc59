//! Words for people, in one place: counts with their nouns (`1 move`, `2 moves`).

/// `count` and `noun`, plural unless the count is one: `1 move`, `0 moves`, `12 games`.
/// Nouns here take an `s` (every one the program counts does).
pub fn count(count: impl Into<u64>, noun: &str) -> String {
    let count = count.into();
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// `noun` as [`count`] would write it after `count`: `case`, `cases`.
pub fn noun(count: impl Into<u64>, noun: &str) -> String {
    if count.into() == 1 {
        noun.to_owned()
    } else {
        format!("{noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_the_rest_plural() {
        assert_eq!(count(1u32, "move"), "1 move");
        assert_eq!(count(0u32, "move"), "0 moves");
        assert_eq!(count(252u64, "move"), "252 moves");
        assert_eq!(noun(1u8, "case"), "case");
        assert_eq!(noun(3u8, "case"), "cases");
    }
}
