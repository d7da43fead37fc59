//! Points: what each case is worth, who sees it, and the partial credit a failure of a given
//! class keeps, from a small TOML file:
//!
//! ```toml
//! points = 1                  # each case, unless a rule below says otherwise
//! visibility = "visible"      # visible | hidden | after_due_date | after_published
//!
//! [partial]                   # a failure of this class keeps this share of the points
//! trailing-whitespace = 0.5
//!
//! [kinds.passes]              # the cases of a kind (a subfolder of --cases, or a
//! points = 2                  # generated kind)
//! visibility = "hidden"
//!
//! [cases."passes/0003.in"]    # one case (wins over its kind)
//! points = 5
//! ```
//!
//! Every name must match: an unknown key, class, kind or case is an error, so that a typo
//! never silently grades out of the wrong total.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::FailureClass;

/// Who sees a case's result, in Gradescope's words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Always.
    #[default]
    Visible,
    /// Never the student (staff only).
    Hidden,
    /// After the due date.
    AfterDueDate,
    /// Once the grades are published.
    AfterPublished,
}

impl Visibility {
    /// The name Gradescope uses.
    pub const fn name(self) -> &'static str {
        match self {
            Visibility::Visible => "visible",
            Visibility::Hidden => "hidden",
            Visibility::AfterDueDate => "after_due_date",
            Visibility::AfterPublished => "after_published",
        }
    }
}

/// A rule for a kind or a case.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rule {
    points: Option<f64>,
    visibility: Option<Visibility>,
}

/// The file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PointsFile {
    points: Option<f64>,
    visibility: Option<Visibility>,
    #[serde(default)]
    partial: BTreeMap<String, f64>,
    #[serde(default)]
    kinds: BTreeMap<String, Rule>,
    #[serde(default)]
    cases: BTreeMap<String, Rule>,
}

/// The points file is not right.
#[derive(Debug, Error, PartialEq)]
pub enum PointsError {
    /// Not TOML, or an unknown key.
    #[error("{0}")]
    Syntax(String),
    /// A number out of range.
    #[error("{what} must be a number from 0 to {most}, not {value}")]
    OutOfRange {
        /// What it is.
        what: String,
        /// Its largest value.
        most: f64,
        /// The value given.
        value: f64,
    },
    /// A class that does not exist.
    #[error("[partial] names {0:?}, which is not a failure class (they are: {1})")]
    UnknownClass(String, String),
    /// A kind no case has.
    #[error("[kinds.{0}] matches no case (the kinds here: {1})")]
    UnknownKind(String, String),
    /// A case that is not there.
    #[error("[cases.{0:?}] matches no case")]
    UnknownCase(String),
}

/// What a case is worth and who sees it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Worth {
    /// Points for passing it.
    pub points: f64,
    /// Who sees it.
    pub visibility: Visibility,
}

/// The scoring rules, checked against the cases.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Points {
    default: Option<f64>,
    visibility: Visibility,
    partial: BTreeMap<FailureClass, f64>,
    kinds: BTreeMap<String, Rule>,
    cases: BTreeMap<String, Rule>,
}

impl Points {
    /// Reads a points file, checked against the cases there are (`(name, kind)` each).
    ///
    /// # Errors
    /// [`PointsError`]: bad TOML, unknown keys, classes, kinds or cases, numbers out of range.
    pub fn parse(text: &str, cases: &[(String, String)]) -> Result<Points, PointsError> {
        let file: PointsFile =
            toml::from_str(text).map_err(|error| PointsError::Syntax(error.to_string()))?;
        let check = |what: String, value: f64, most: f64| {
            if value.is_finite() && (0.0..=most).contains(&value) {
                Ok(())
            } else {
                Err(PointsError::OutOfRange { what, most, value })
            }
        };
        const MOST_POINTS: f64 = 1e6;
        if let Some(points) = file.points {
            check("points".to_owned(), points, MOST_POINTS)?;
        }
        for (name, rule) in file.kinds.iter().chain(&file.cases) {
            if let Some(points) = rule.points {
                check(format!("the points of {name}"), points, MOST_POINTS)?;
            }
        }
        let mut partial = BTreeMap::new();
        for (name, share) in &file.partial {
            let class = FailureClass::from_name(name).ok_or_else(|| {
                let names: Vec<_> = FailureClass::ALL.iter().map(|c| c.name()).collect();
                PointsError::UnknownClass(name.clone(), names.join(", "))
            })?;
            check(format!("[partial] {name}"), *share, 1.0)?;
            partial.insert(class, *share);
        }
        for kind in file.kinds.keys() {
            if !cases.iter().any(|(_, case_kind)| case_kind == kind) {
                let mut kinds: Vec<_> = cases.iter().map(|(_, kind)| kind.as_str()).collect();
                kinds.sort_unstable();
                kinds.dedup();
                return Err(PointsError::UnknownKind(kind.clone(), kinds.join(", ")));
            }
        }
        for name in file.cases.keys() {
            if !cases.iter().any(|(case, _)| case == name) {
                return Err(PointsError::UnknownCase(name.clone()));
            }
        }
        Ok(Points {
            default: file.points,
            visibility: file.visibility.unwrap_or_default(),
            partial,
            kinds: file.kinds,
            cases: file.cases,
        })
    }

    /// What the case `name` of kind `kind` is worth.
    pub fn worth(&self, name: &str, kind: &str) -> Worth {
        let case = self.cases.get(name).copied().unwrap_or_default();
        let kind = self.kinds.get(kind).copied().unwrap_or_default();
        Worth {
            points: case.points.or(kind.points).or(self.default).unwrap_or(1.0),
            visibility: case
                .visibility
                .or(kind.visibility)
                .unwrap_or(self.visibility),
        }
    }

    /// The points a case worth `worth` earns: all of them if it passed, else the share its
    /// failure's class keeps (none for a class not in `[partial]`), whatever the class.
    pub fn earned(&self, worth: Worth, failure: Option<FailureClass>) -> f64 {
        match failure {
            None => worth.points,
            Some(class) => worth.points * self.partial.get(&class).copied().unwrap_or(0.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grading::check::Class;

    fn cases() -> Vec<(String, String)> {
        ["standard/1.in", "passes/1.in", "passes/2.in"]
            .iter()
            .map(|name| {
                let kind = name.split('/').next().unwrap();
                ((*name).to_owned(), kind.to_owned())
            })
            .collect()
    }

    #[test]
    fn rules_apply_case_over_kind_over_default() {
        let text = r#"
            points = 2
            visibility = "after_due_date"
            [partial]
            trailing-whitespace = 0.5
            [kinds.passes]
            points = 3
            visibility = "hidden"
            [cases."passes/2.in"]
            points = 10
        "#;
        let points = Points::parse(text, &cases()).unwrap();
        let standard = points.worth("standard/1.in", "standard");
        assert_eq!(standard.points, 2.0);
        assert_eq!(standard.visibility, Visibility::AfterDueDate);
        assert_eq!(points.worth("passes/1.in", "passes").points, 3.0);
        let special = points.worth("passes/2.in", "passes");
        assert_eq!(
            (special.points, special.visibility),
            (10.0, Visibility::Hidden)
        );
        assert_eq!(points.earned(special, None), 10.0);
        let earned = |class: FailureClass| points.earned(special, Some(class));
        assert_eq!(earned(Class::TrailingWhitespace.into()), 5.0);
        // Every other class earns nothing, the grader's own included.
        for class in FailureClass::ALL {
            if class != FailureClass::Check(Class::TrailingWhitespace) {
                assert_eq!(earned(class), 0.0, "{class}");
            }
        }
        let build = Points::parse("[partial]\nbuild-failed = 0.25", &cases()).unwrap();
        let worth = build.worth("passes/1.in", "passes");
        assert_eq!(build.earned(worth, Some(FailureClass::BuildFailed)), 0.25);
        assert_eq!(build.earned(worth, Some(FailureClass::BadSubmission)), 0.0);
        let none = Points::parse("", &cases()).unwrap();
        assert_eq!(none.worth("x", "y").points, 1.0);
    }

    #[test]
    fn mistakes_are_named() {
        let cases = cases();
        let error = |text: &str| Points::parse(text, &cases).unwrap_err().to_string();
        assert!(error("pionts = 1").contains("pionts"));
        assert!(error("[partial]\ncrashed = 0.5").contains("not a failure class"));
        assert!(error("[partial]\ncrash = 1.5").contains("from 0 to 1"));
        assert!(error("points = -1").contains("from 0"));
        assert!(error("[kinds.pass]\npoints = 1").contains("passes, standard"));
        assert!(error("[cases.\"nope.in\"]\npoints = 1").contains("matches no case"));
        assert!(error("visibility = \"secret\"").contains("secret"));
    }
}
