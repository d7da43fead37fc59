//! The learning made visible: a run's figures, iteration by iteration, drawn as an SVG
//! chart: its strength above (the best net's score against random and greedy and, where
//! `othello zero measure` has measured them, against the `classic` levels and the share of
//! its moves that keep the exact value), its losses below.

use plotters::prelude::*;

use super::levels::LevelRow;
use super::run::Iteration;

/// The share of the best net's moves that kept the exact value after an iteration
/// (`exact.csv`, from `othello zero measure`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize)]
pub struct ExactRow {
    /// The iteration (0: the random net the run started from).
    pub iteration: usize,
    /// The best net then.
    pub best: usize,
    /// Positions where its move kept the value.
    pub kept: usize,
    /// Positions measured.
    pub positions: usize,
    /// `kept / positions`.
    pub share: f64,
}

/// The rows of `text`, an `exact.csv`.
///
/// # Errors
/// If it is not such a file: the reason.
pub fn parse_exact(text: &str) -> Result<Vec<ExactRow>, String> {
    csv::Reader::from_reader(text.as_bytes())
        .deserialize()
        .collect::<Result<Vec<ExactRow>, _>>()
        .map_err(|error| error.to_string())
}

/// The first line of every drawing: how `othello zero curve` knows its own output (it
/// writes over nothing else, another SVG included).
pub const CURVE_MARK: &str = "<!-- drawn by othello zero curve -->";

/// The exact share's colour: plain green is too light on white.
const DARK_GREEN: RGBColor = RGBColor(0, 140, 0);

/// The colour of the line against each `classic` level, 1 to 9: each its own, none of
/// them another line's.
const LEVEL_COLOURS: [RGBColor; 9] = [
    RGBColor(255, 140, 0),
    RGBColor(128, 128, 0),
    RGBColor(128, 0, 160),
    RGBColor(0, 150, 150),
    RGBColor(220, 20, 140),
    RGBColor(140, 70, 20),
    RGBColor(110, 110, 110),
    RGBColor(0, 0, 110),
    RGBColor(0, 0, 0),
];

/// The chart's size in pixels.
const SIZE: (u32, u32) = (960, 640);

/// The width of the legends' column, right of the charts (a legend inside a chart hides
/// the lines that run under it).
const LEGEND_WIDTH: u32 = 230;

/// A figure of an iteration.
type Pick = fn(&Iteration) -> f64;

/// A line of a chart: its legend and its points.
type Line = (String, RGBColor, Vec<(f64, f64)>);

/// The chart of `iterations` (and of `exact` and `levels` where given) as an SVG
/// document, titled `title`.
///
/// # Errors
/// If the drawing fails (it draws into memory: only a bug makes it fail).
pub fn curve_svg(
    title: &str,
    iterations: &[Iteration],
    exact: &[ExactRow],
    levels: &[LevelRow],
) -> Result<String, String> {
    let mut svg = String::new();
    draw(&mut svg, title, iterations, exact, levels).map_err(|error| error.to_string())?;
    Ok(format!("{CURVE_MARK}\n{svg}"))
}

/// The strength chart's lines: against random and greedy, the exact share, and a line
/// for each level played.
fn strength_lines(iterations: &[Iteration], exact: &[ExactRow], levels: &[LevelRow]) -> Vec<Line> {
    let percent = |pick: fn(&Iteration) -> f64| {
        iterations
            .iter()
            .map(|row| (row.iteration as f64, pick(row) * 100.0))
            .collect::<Vec<_>>()
    };
    let mut lines = vec![
        (
            "against random".to_owned(),
            BLUE,
            percent(|row| row.vs_random),
        ),
        (
            "against greedy".to_owned(),
            RED,
            percent(|row| row.vs_greedy),
        ),
    ];
    let mut played: Vec<u8> = levels.iter().map(|row| row.level).collect();
    played.sort_unstable();
    played.dedup();
    for level in played {
        let mut points: Vec<(f64, f64)> = levels
            .iter()
            .filter(|row| row.level == level)
            .map(|row| (row.iteration as f64, row.score * 100.0))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        lines.push((
            format!("against classic:{level}"),
            LEVEL_COLOURS[usize::from(level.clamp(1, 9) - 1)],
            points,
        ));
    }
    lines.push((
        "moves keeping the exact value".to_owned(),
        DARK_GREEN,
        exact
            .iter()
            .map(|row| (row.iteration as f64, row.share * 100.0))
            .collect(),
    ));
    lines.retain(|(_, _, points)| !points.is_empty());
    lines
}

/// `lines`' legend in `area`, under `heading`.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    heading: &str,
    lines: &[Line],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font = ("sans-serif", 15).into_font();
    area.draw(&Text::new(heading.to_owned(), (8, 20), font.clone()))?;
    for (n, (label, color, _)) in lines.iter().enumerate() {
        let y = 46 + 22 * n as i32;
        area.draw(&PathElement::new([(8, y), (32, y)], color.stroke_width(2)))?;
        area.draw(&Text::new(label.clone(), (40, y - 8), font.clone()))?;
    }
    Ok(())
}

fn draw(
    svg: &mut String,
    title: &str,
    iterations: &[Iteration],
    exact: &[ExactRow],
    levels: &[LevelRow],
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 20))?;
    let (upper, lower) = root.split_vertically(SIZE.1 / 2 + 10);
    let (upper, upper_legend) = upper.split_horizontally(SIZE.0 - LEGEND_WIDTH);
    let (lower, lower_legend) = lower.split_horizontally(SIZE.0 - LEGEND_WIDTH);
    let last = iterations
        .iter()
        .map(|row| row.iteration)
        .chain(exact.iter().map(|row| row.iteration))
        .chain(levels.iter().map(|row| row.iteration))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    // A label at each whole iteration, up to 10.
    let ticks = (last as usize + 1).min(11);

    let mut strength = ChartBuilder::on(&upper)
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..last, 0f64..100f64)?;
    strength
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_labels(ticks)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .x_desc("iteration")
        .y_desc("%")
        .draw()?;
    let lines = strength_lines(iterations, exact, levels);
    for (_, color, points) in &lines {
        strength.draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?;
        strength.draw_series(
            points
                .iter()
                .map(|&point| Circle::new(point, 3, color.filled())),
        )?;
    }
    legend(&upper_legend, "the best net (score %)", &lines)?;

    let most_loss = iterations
        .iter()
        .map(|row| row.loss_after)
        .fold(0.0f64, f64::max)
        .max(0.1)
        * 1.1;
    let mut losses = ChartBuilder::on(&lower)
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..last, 0f64..most_loss)?;
    losses
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_labels(ticks)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .x_desc("iteration")
        .y_desc("loss after the fit")
        .draw()?;
    let picks: [(&str, RGBColor, Pick); 3] = [
        ("policy + value", BLACK, |row| row.loss_after),
        ("policy (cross-entropy)", MAGENTA, |row| row.policy_loss),
        ("value (squared error)", CYAN, |row| row.value_loss),
    ];
    let loss_lines: Vec<Line> = picks
        .into_iter()
        .map(|(label, color, pick)| {
            let points = iterations
                .iter()
                .map(|row| (row.iteration as f64, pick(row)))
                .collect();
            (label.to_owned(), color, points)
        })
        .filter(|(_, _, points): &Line| !points.is_empty())
        .collect();
    for (_, color, points) in &loss_lines {
        losses.draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?;
        // A point too, so that a single iteration shows.
        losses.draw_series(
            points
                .iter()
                .map(|&point| Circle::new(point, 2, color.filled())),
        )?;
    }
    legend(&lower_legend, "losses after each fit", &loss_lines)?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each level's line has a colour of its own, none of them another line's (the red team
    /// saw levels 1, 5 and 9 drawn alike).
    #[test]
    fn every_line_has_its_own_colour() {
        let mut colours: Vec<RGBColor> = LEVEL_COLOURS.to_vec();
        colours.extend([BLUE, RED, DARK_GREEN]);
        for (i, a) in colours.iter().enumerate() {
            for b in &colours[i + 1..] {
                assert_ne!(a, b);
            }
        }
        let levels: Vec<LevelRow> = (1..=9)
            .map(|level| LevelRow {
                iteration: 1,
                best: 1,
                net: String::new(),
                level,
                games: 2,
                seed: 1,
                wins: 1,
                draws: 0,
                losses: 1,
                score: 0.5,
            })
            .collect();
        let lines = strength_lines(&[], &[], &levels);
        assert_eq!(lines.len(), 9);
        for (line, level) in lines.iter().zip(1..) {
            assert_eq!(line.0, format!("against classic:{level}"));
            assert_eq!(line.1, LEVEL_COLOURS[level - 1]);
        }
    }
}
