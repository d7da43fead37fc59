//! Why a case of a class run failed: a class of `othello check`, or one of the grader's own
//! (the build failed, the submission could not be used). One type, so that scoring cannot
//! tell a failure it knows from one it does not: every failure earns nothing unless the
//! points file gives its class partial credit.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::grading::check::Class;

/// The class of a failed case, as every report names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FailureClass {
    /// The build command failed (or took too long): every case of the submission.
    BuildFailed,
    /// The submission could not be used: a damaged or oversized archive, not a submission
    /// at all, or the file its command names is missing.
    BadSubmission,
    /// What `othello check` found.
    Check(Class),
}

impl FailureClass {
    /// Every class, in report order: the grader's own first, then `check`'s.
    pub const ALL: [FailureClass; 2 + Class::ALL.len()] = {
        let mut all = [FailureClass::BuildFailed; 2 + Class::ALL.len()];
        all[1] = FailureClass::BadSubmission;
        let mut index = 0;
        while index < Class::ALL.len() {
            all[2 + index] = FailureClass::Check(Class::ALL[index]);
            index += 1;
        }
        all
    };

    /// The name used in reports and in points files: `build-failed`, `crash`, ...
    pub const fn name(self) -> &'static str {
        match self {
            FailureClass::BuildFailed => "build-failed",
            FailureClass::BadSubmission => "bad-submission",
            FailureClass::Check(class) => class.name(),
        }
    }

    /// What it means, in a few words.
    pub const fn description(self) -> &'static str {
        match self {
            FailureClass::BuildFailed => "the build failed",
            FailureClass::BadSubmission => "the submission could not be used",
            FailureClass::Check(class) => class.description(),
        }
    }

    /// The class named `name`, if there is one.
    pub fn from_name(name: &str) -> Option<FailureClass> {
        FailureClass::ALL
            .into_iter()
            .find(|class| class.name() == name)
    }

    /// Whether it fails every case of a submission at once (nothing of it ran).
    pub const fn whole_submission(self) -> bool {
        matches!(
            self,
            FailureClass::BuildFailed | FailureClass::BadSubmission
        )
    }
}

impl fmt::Display for FailureClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl From<Class> for FailureClass {
    fn from(class: Class) -> FailureClass {
        FailureClass::Check(class)
    }
}

impl Serialize for FailureClass {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for FailureClass {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<FailureClass, D::Error> {
        let name = String::deserialize(deserializer)?;
        FailureClass::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("no failure class {name:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_has_one_name_that_reads_back() {
        let mut names: Vec<_> = FailureClass::ALL.iter().map(|class| class.name()).collect();
        for class in FailureClass::ALL {
            assert_eq!(FailureClass::from_name(class.name()), Some(class));
            let json = serde_json::to_string(&class).unwrap();
            assert_eq!(serde_json::from_str::<FailureClass>(&json).unwrap(), class);
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FailureClass::ALL.len());
        assert!(serde_json::from_str::<FailureClass>("\"crashed\"").is_err());
    }
}
