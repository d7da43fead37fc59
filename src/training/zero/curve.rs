//! The learning made visible: a run's figures, iteration by iteration, drawn as an SVG
//! chart: its strength above (the best net's score against random and greedy, the share
//! of its moves that keep the exact value where `othello zero measure` has measured it),
//! its losses below.

use plotters::prelude::*;

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

/// The chart's size in pixels.
const SIZE: (u32, u32) = (800, 640);

/// The chart of `iterations` (and of `exact` where given) as an SVG document, titled
/// `title`.
///
/// # Errors
/// If the drawing fails (it draws into memory: only a bug makes it fail).
pub fn curve_svg(
    title: &str,
    iterations: &[Iteration],
    exact: &[ExactRow],
) -> Result<String, String> {
    let mut svg = String::new();
    draw(&mut svg, title, iterations, exact).map_err(|error| error.to_string())?;
    Ok(format!("{CURVE_MARK}\n{svg}"))
}

fn draw(
    svg: &mut String,
    title: &str,
    iterations: &[Iteration],
    exact: &[ExactRow],
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 22))?;
    let (upper, lower) = root.split_vertically(SIZE.1 / 2 + 10);
    let last = iterations
        .iter()
        .map(|row| row.iteration)
        .chain(exact.iter().map(|row| row.iteration))
        .max()
        .unwrap_or(1)
        .max(1) as f64;

    let mut strength = ChartBuilder::on(&upper)
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..last, 0f64..100f64)?;
    strength
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .x_desc("iteration")
        .y_desc("%")
        .draw()?;
    let percent = |pick: fn(&Iteration) -> f64| {
        iterations
            .iter()
            .map(move |row| (row.iteration as f64, pick(row) * 100.0))
    };
    for (label, color, points) in [
        (
            "best net against random",
            BLUE,
            percent(|row| row.vs_random).collect::<Vec<_>>(),
        ),
        (
            "best net against greedy",
            RED,
            percent(|row| row.vs_greedy).collect(),
        ),
        (
            "moves keeping the exact value",
            DARK_GREEN,
            exact
                .iter()
                .map(|row| (row.iteration as f64, row.share * 100.0))
                .collect(),
        ),
    ] {
        if points.is_empty() {
            continue;
        }
        strength
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
            .label(label)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
        strength.draw_series(
            points
                .into_iter()
                .map(|point| Circle::new(point, 3, color.filled())),
        )?;
    }
    strength
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;

    let most_loss = iterations
        .iter()
        .map(|row| row.loss_after)
        .fold(0.0f64, f64::max)
        .max(0.1)
        * 1.5; // room above the lines for the legend
    let mut losses = ChartBuilder::on(&lower)
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..last, 0f64..most_loss)?;
    losses
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .x_desc("iteration")
        .y_desc("loss after the fit")
        .draw()?;
    for (label, color, pick) in [
        (
            "policy + value",
            BLACK,
            (|row: &Iteration| row.loss_after) as fn(&Iteration) -> f64,
        ),
        ("policy (cross-entropy)", MAGENTA, |row: &Iteration| {
            row.policy_loss
        }),
        ("value (squared error)", CYAN, |row: &Iteration| {
            row.value_loss
        }),
    ] {
        let points: Vec<(f64, f64)> = iterations
            .iter()
            .map(|row| (row.iteration as f64, pick(row)))
            .collect();
        if points.is_empty() {
            continue;
        }
        losses
            .draw_series(LineSeries::new(points, color.stroke_width(2)))?
            .label(label)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    losses
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
