//! What a new game or a challenge asks for, checked: rules, board, first mover, win rule,
//! time control, engines' times, and guests' names.

use othello::{Color, Shape, Variant, WinRule};
use serde::{Deserialize, Serialize};

use super::MAX_GUEST_TIME_MS;
use othello::TimeControl;

use crate::server::{client::Client, error::ApiError, live::MAX_TIME_MS};

/// A time control asked for: each side's time and the increment per move, or
/// (correspondence) days a move.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockRequest {
    base_ms: Option<u64>,
    #[serde(default)]
    increment_ms: u64,
    days: Option<u64>,
}

/// The most days a correspondence move may be given.
pub const MAX_DAYS: u64 = 14;

/// The longest time control, in milliseconds: three hours a side.
pub const MAX_CLOCK_MS: u64 = 3 * 60 * 60 * 1000;

/// The largest increment, in milliseconds.
pub const MAX_INCREMENT_MS: u64 = 60_000;

/// The longest name a guest may give.
pub const MAX_NAME_CHARS: usize = 24;

impl ClockRequest {
    /// The time control, if in range: from a second to three hours, increments up to a
    /// minute; or 1 to [`MAX_DAYS`] days a move.
    pub fn control(self) -> Result<TimeControl, ApiError> {
        let base_ms = match (self.base_ms, self.days) {
            (None, Some(days)) if self.increment_ms == 0 => {
                if !(1..=MAX_DAYS).contains(&days) {
                    return Err(ApiError::BadRequest(format!(
                        "clock.days must be from 1 to {MAX_DAYS}, not {days}"
                    )));
                }
                return Ok(TimeControl::correspondence(days));
            }
            (Some(base_ms), None) => base_ms,
            (None, None) => {
                return Err(ApiError::BadRequest(
                    "a clock needs base_ms (with increment_ms if any), or days a move for \
                     correspondence"
                        .into(),
                ));
            }
            _ => {
                return Err(ApiError::BadRequest(
                    "a clock is base_ms (with increment_ms if any), or days a move for \
                     correspondence (no increment): not both"
                        .into(),
                ));
            }
        };
        if !(1_000..=MAX_CLOCK_MS).contains(&base_ms) {
            return Err(ApiError::BadRequest(format!(
                "clock.base_ms must be from 1000 to {MAX_CLOCK_MS}, not {base_ms}"
            )));
        }
        if self.increment_ms > MAX_INCREMENT_MS {
            return Err(ApiError::BadRequest(format!(
                "clock.increment_ms must be from 0 to {MAX_INCREMENT_MS}, not {}",
                self.increment_ms
            )));
        }
        Ok(TimeControl::new(base_ms, self.increment_ms))
    }
}

/// A guest's name, trimmed: 1 to 24 characters, none of them control characters.
///
/// # Errors
/// [`ApiError::BadRequest`] naming `field`.
pub fn guest_name(text: Option<String>, field: &str) -> Result<Option<String>, ApiError> {
    let Some(text) = text else {
        return Ok(None);
    };
    let name = text.trim();
    let chars = name.chars().count();
    if chars == 0
        || chars > MAX_NAME_CHARS
        || name.chars().any(invisible)
        || name.chars().all(blank)
        || stacked_marks(name)
    {
        return Err(ApiError::BadRequest(format!(
            "{field} must be 1 to {MAX_NAME_CHARS} characters that show: no control or \
             formatting characters (such as direction marks), blanks, private or unassigned \
             characters, or more than two accents on a letter"
        )));
    }
    // A person is not to pass for a computer player (`engine:5`), or be called what the
    // server writes for a seat (`human`).
    if name
        .to_ascii_lowercase()
        .parse::<othello::engine::Occupant>()
        .is_ok()
    {
        return Err(ApiError::BadRequest(format!(
            "{field} {name:?} is what the server calls a seat or a computer player: choose \
             another"
        )));
    }
    Ok(Some(name.to_owned()))
}

/// Characters that show as nothing though they are letters or symbols (Hangul fillers,
/// the blank braille pattern), or whitespace: a name of these alone is no name.
fn blank(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{2800}'
        )
}

/// Whether more than two combining marks follow one another (the "zalgo" text that
/// spills over the lines around it).
fn stacked_marks(name: &str) -> bool {
    /// The blocks of combining marks.
    const MARKS: &[(u32, u32)] = &[
        (0x0300, 0x036F),
        (0x0483, 0x0489),
        (0x1AB0, 0x1AFF),
        (0x1DC0, 0x1DFF),
        (0x20D0, 0x20FF),
        (0xFE20, 0xFE2F),
    ];
    let mut run = 0;
    for c in name.chars() {
        let code = u32::from(c);
        if MARKS
            .iter()
            .any(|&(first, last)| (first..=last).contains(&code))
        {
            run += 1;
            if run > 2 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// Characters a name may not hold: controls (Cc), formatting characters (Cf: direction
/// marks and overrides, zero-width spaces and joiners, tags ...), line and paragraph
/// separators, private-use characters and noncharacters. They show as nothing, as
/// anything, or turn the text around them.
fn invisible(c: char) -> bool {
    /// Unicode's Cf ranges (Unicode 15.1).
    const FORMAT: &[(u32, u32)] = &[
        (0x00AD, 0x00AD),
        (0x0600, 0x0605),
        (0x061C, 0x061C),
        (0x06DD, 0x06DD),
        (0x070F, 0x070F),
        (0x0890, 0x0891),
        (0x08E2, 0x08E2),
        (0x180E, 0x180E),
        (0x200B, 0x200F),
        (0x202A, 0x202E),
        (0x2060, 0x2064),
        (0x2066, 0x206F),
        (0xFEFF, 0xFEFF),
        (0xFFF9, 0xFFFB),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x1343F),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0001, 0xE0001),
        (0xE0020, 0xE007F),
    ];
    let code = u32::from(c);
    // Private use (shows as whatever a font puts there) and noncharacters.
    let private = (0xE000..=0xF8FF).contains(&code) || code >= 0xF0000;
    let noncharacter = (0xFDD0..=0xFDEF).contains(&code) || code & 0xFFFE == 0xFFFE;
    c.is_control()
        || private
        || noncharacter
        || matches!(c, '\u{2028}' | '\u{2029}')
        || FORMAT
            .iter()
            .any(|&(first, last)| (first..=last).contains(&code))
}

fn side_length(value: Option<u64>, name: &str) -> Result<Option<u8>, ApiError> {
    match value {
        None => Ok(None),
        Some(n @ 4..=16) => Ok(Some(n as u8)),
        Some(n) => Err(ApiError::BadRequest(format!(
            "{name} must be from 4 to 16, not {n}"
        ))),
    }
}

/// The longest time a client may ask for, and what the refusal adds.
#[derive(Clone, Copy, Debug)]
pub(super) struct TimeCap {
    pub ms: u64,
    /// `" for a guest (log in for more)"`, or nothing.
    pub whose: &'static str,
}

pub(super) fn time(
    value: Option<u64>,
    name: &str,
    default: u64,
    cap: TimeCap,
) -> Result<u64, ApiError> {
    let TimeCap { ms: max, whose } = cap;
    match value {
        None => Ok(default.min(max)),
        Some(n @ 1..) if n <= max => Ok(n),
        Some(n) => Err(ApiError::BadRequest(format!(
            "{name} must be from 1 to {max} (milliseconds){whose}, not {n}"
        ))),
    }
}

/// The longest an engine of `client`'s may think a move.
pub(super) fn max_time(client: &Client) -> TimeCap {
    if client.is_guest() {
        TimeCap {
            ms: MAX_GUEST_TIME_MS,
            whose: " for a guest (log in for more)",
        }
    } else {
        TimeCap {
            ms: MAX_TIME_MS,
            whose: "",
        }
    }
}

/// The game's settings as asked for (each optional): rules, board, first mover, win rule.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct SettingsRequest {
    pub(super) rules: Option<String>,
    pub(super) rows: Option<u64>,
    pub(super) columns: Option<u64>,
    pub(super) first: Option<String>,
    pub(super) win: Option<String>,
}

/// [`SettingsRequest`] read: each setting asked for, if it makes sense.
#[derive(Clone, Copy, Debug, Default)]
pub struct Settings {
    /// The rule set.
    pub variant: Option<Variant>,
    /// The board.
    pub shape: Option<Shape>,
    /// Who moves first.
    pub first: Option<Color>,
    /// Who wins.
    pub win: Option<WinRule>,
}

impl SettingsRequest {
    /// The settings, each checked.
    ///
    /// # Errors
    /// [`ApiError::BadRequest`] naming the first that makes no sense.
    pub fn read(&self) -> Result<Settings, ApiError> {
        let variant = match self.rules.as_deref() {
            None => None,
            Some(text) => Some(text.parse::<Variant>().map_err(|_| {
                ApiError::BadRequest(format!("rules must be full or simple, not {text:?}"))
            })?),
        };
        let rows = side_length(self.rows, "rows")?;
        let columns = side_length(self.columns, "columns")?;
        let shape = match (rows, columns) {
            (None, None) => None,
            (rows, columns) => Some(
                Shape::new(rows.unwrap_or(8), columns.unwrap_or(8))
                    .map_err(|error| ApiError::BadRequest(error.to_string()))?,
            ),
        };
        let first = match self.first.as_deref() {
            None => None,
            Some("B" | "b") => Some(Color::Black),
            Some("W" | "w") => Some(Color::White),
            Some(text) => {
                return Err(ApiError::BadRequest(format!(
                    "first must be B or W, not {text:?}"
                )));
            }
        };
        let win = self
            .win
            .as_deref()
            .map(WinRule::from_name)
            .transpose()
            .map_err(|error| ApiError::BadRequest(format!("win: {error}")))?;
        Ok(Settings {
            variant,
            shape,
            first,
            win,
        })
    }
}

/// A time control as lists show it.
#[derive(Serialize)]
pub(crate) struct ClockView {
    base_ms: u64,
    increment_ms: u64,
    /// Correspondence: days a move (`null` for a clock of the game's time).
    days: Option<u64>,
}

/// A time control as lists show it (`None`: untimed).
pub(crate) fn clock_view(clock: Option<othello::TimeControl>) -> Option<ClockView> {
    clock.map(|clock| ClockView {
        base_ms: clock.base_ms,
        increment_ms: clock.increment_ms,
        days: clock.days_per_move(),
    })
}
