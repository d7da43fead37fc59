//! The class list: who should have handed in what, from a CSV file with a header row.
//! Columns (any order, any letter case, others ignored): `submission` (the name the
//! submission is graded under: its folder or archive without the extension; empty for a
//! student who handed in nothing), and at least one of `id` (the student number, the
//! LMS's SIS user id) and `email`; `name`, `login` (the LMS's login id; the email where
//! missing) and `section` are optional. Every student gets a row in the gradebooks, a
//! missing submission scoring 0; a submission nobody on the list handed in is reported.

use std::collections::BTreeSet;

use thiserror::Error;

/// One student on the class list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Student {
    /// Student number (SIS user id).
    pub id: String,
    /// Full name.
    pub name: String,
    /// Email address.
    pub email: String,
    /// Login (SIS login id); the email where the list has none.
    pub login: String,
    /// Section.
    pub section: String,
    /// The name of their submission (empty: none expected).
    pub submission: String,
}

/// The class list, in its order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Roster {
    /// The students.
    pub students: Vec<Student>,
}

/// The class list is not right.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum RosterError {
    /// Not CSV.
    #[error("line {line}: {message}")]
    Csv {
        /// The line.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A column it needs is missing.
    #[error("the header row needs a submission column and an id or email column (found: {0})")]
    Columns(String),
    /// Two students with one submission, id or email.
    #[error("line {line}: {what} {name:?} is listed twice")]
    Twice {
        /// The line.
        line: u64,
        /// Which column.
        what: &'static str,
        /// The value.
        name: String,
    },
    /// A student with neither an id nor an email.
    #[error("line {0}: a student with neither an id nor an email")]
    Unnamed(u64),
    /// No student at all.
    #[error("no students in it")]
    Empty,
}

impl Roster {
    /// Reads a class list.
    ///
    /// # Errors
    /// [`RosterError`]: not CSV, a column missing, a submission listed twice, a student
    /// without an id or email, nobody at all.
    pub fn parse(text: &str) -> Result<Roster, RosterError> {
        let csv_error = |error: csv::Error| RosterError::Csv {
            line: error.position().map_or(0, csv::Position::line),
            message: error.to_string(),
        };
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .flexible(true)
            .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
        let headers: Vec<String> = reader
            .headers()
            .map_err(csv_error)?
            .iter()
            .map(|header| header.to_lowercase())
            .collect();
        let column = |name: &str| headers.iter().position(|header| header == name);
        let (submission, id, email) = (column("submission"), column("id"), column("email"));
        let (name, login, section) = (column("name"), column("login"), column("section"));
        let Some(submission) = submission.filter(|_| id.is_some() || email.is_some()) else {
            return Err(RosterError::Columns(headers.join(", ")));
        };
        let mut students = Vec::new();
        // Each submission, id and email at most once: two rows for one id would give an
        // LMS two grades for one student.
        let mut seen: [BTreeSet<String>; 3] = Default::default();
        for record in reader.records() {
            let record = record.map_err(csv_error)?;
            let line = record.position().map_or(0, csv::Position::line);
            let field = |index: Option<usize>| {
                index
                    .and_then(|index| record.get(index))
                    .unwrap_or("")
                    .to_owned()
            };
            if record.iter().all(str::is_empty) {
                continue;
            }
            let student = Student {
                id: field(id),
                name: field(name),
                email: field(email),
                login: Some(field(login))
                    .filter(|login| !login.is_empty())
                    .unwrap_or_else(|| field(email)),
                section: field(section),
                submission: field(Some(submission)),
            };
            if student.id.is_empty() && student.email.is_empty() {
                return Err(RosterError::Unnamed(line));
            }
            for (index, (what, value)) in [
                ("submission", &student.submission),
                ("id", &student.id),
                ("email", &student.email),
            ]
            .into_iter()
            .enumerate()
            {
                if !value.is_empty() && !seen[index].insert(value.to_lowercase()) {
                    return Err(RosterError::Twice {
                        line,
                        what,
                        name: value.clone(),
                    });
                }
            }
            students.push(student);
        }
        if students.is_empty() {
            return Err(RosterError::Empty);
        }
        Ok(Roster { students })
    }

    /// Which student (by index) each of the submissions `names` belongs to: the one that
    /// lists its exact name; else the one whose listed name equals it but for letter case,
    /// where that student and that submission have no other match. No student gets two
    /// submissions: one that matches nobody is nobody's (and reported so).
    pub fn assign(&self, names: &[&str]) -> Vec<Option<usize>> {
        let mut owner: Vec<Option<usize>> = names
            .iter()
            .map(|name| {
                self.students
                    .iter()
                    .position(|student| !name.is_empty() && student.submission == *name)
            })
            .collect();
        let taken: BTreeSet<usize> = owner.iter().flatten().copied().collect();
        let folds = |student: &Student, name: &str| {
            !student.submission.is_empty()
                && student.submission.to_lowercase() == name.to_lowercase()
        };
        for index in 0..names.len() {
            if owner[index].is_some() {
                continue;
            }
            let mut candidates = (0..self.students.len())
                .filter(|&student| !taken.contains(&student))
                .filter(|&student| folds(&self.students[student], names[index]));
            let (Some(student), None) = (candidates.next(), candidates.next()) else {
                continue;
            };
            let rivals = (0..names.len()).filter(|&other| {
                other != index
                    && owner[other].is_none()
                    && folds(&self.students[student], names[other])
            });
            if rivals.count() == 0 {
                owner[index] = Some(student);
            }
        }
        owner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_list_reads_in_any_column_order() {
        let roster = Roster::parse(
            "\u{feff}Email,Name,ID,Submission,Extra\n\
             ann@u.edu,\"Lee, Ann\",1001,ann,x\n\
             bob@u.edu,Bob,1002,,\n\
             \n\
             ,Cy,1003,Cy.Smith,\n",
        )
        .unwrap();
        assert_eq!(roster.students.len(), 3);
        assert_eq!(roster.students[0].name, "Lee, Ann");
        assert_eq!(roster.students[0].login, "ann@u.edu");
        assert_eq!(roster.students[1].submission, "");
        assert_eq!(
            roster.assign(&["cy.smith", "bob", "ann"]),
            [Some(2), None, Some(0)]
        );
        // Two submissions that both fold to one listed name: the exact one is its, the
        // other nobody's; with neither exact, nobody's.
        let roster = Roster::parse("id,submission\n1,ALICE\n2,bob\n").unwrap();
        assert_eq!(
            roster.assign(&["alice", "Alice", "bob"]),
            [None, None, Some(1)]
        );
        assert_eq!(roster.assign(&["ALICE", "Alice"]), [Some(0), None]);
    }

    #[test]
    fn mistakes_are_named() {
        let error = |text: &str| Roster::parse(text).unwrap_err().to_string();
        assert!(error("name,email\nA,a@u\n").contains("submission column"));
        assert!(error("id,submission\n1,a\n2,a\n").contains("submission \"a\" is listed twice"));
        assert!(error("id,submission\n1,a\n1,b\n").contains("id \"1\" is listed twice"));
        assert!(error("id,email,submission\n,,a\n").contains("neither an id nor an email"));
        assert_eq!(error("id,submission\n"), "no students in it");
    }
}
