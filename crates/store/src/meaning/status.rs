//! Where meaning search stands, for `db status` and the panel.

/// Where meaning search stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MeaningStatus {
    /// This bank has no model (search by words only was chosen, or none was given).
    Off,
    /// The model cannot be used, for this reason; search is by words alone.
    Unavailable {
        /// Why, in words for a person.
        reason: String,
    },
    /// The model is there; `with_vector` of `memories` have their vector so far (the
    /// rest are found by their words until the backfill reaches them).
    On {
        /// The model's name.
        model: String,
        /// Where it was loaded from.
        location: String,
        /// Memories in the bank.
        memories: u64,
        /// Of them, those with a vector by this model.
        with_vector: u64,
    },
}

impl MeaningStatus {
    /// One line for `db status`.
    pub fn line(&self) -> String {
        match self {
            MeaningStatus::Off => "meaning: off (search by words only)".into(),
            MeaningStatus::Unavailable { reason } => {
                format!("meaning: unavailable, so search is by words alone: {reason}")
            }
            MeaningStatus::On { model, location, memories, with_vector } if with_vector >= memories => {
                format!("meaning: on, every memory has its vector ({memories}; model {model} from {location})")
            }
            MeaningStatus::On { model, location, memories, with_vector } => format!(
                "meaning: on, vectors made for {with_vector} of {memories} memories; the rest follow in the \
                 background and are found by their words meanwhile (model {model} from {location})"
            ),
        }
    }
}
