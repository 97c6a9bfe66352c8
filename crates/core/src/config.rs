//! Options of a run, validated once when built: after that, packing cannot fail.

use std::fmt;
use std::sync::Arc;

use crate::sizer::{ChunkSizer, Unit};

/// Why a configuration was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The budget is too small to hold any text.
    #[error("budget of {budget} {unit} is too small: it must be at least {min}")]
    BudgetTooSmall {
        /// The budget asked for.
        budget: usize,
        /// Its unit.
        unit: String,
        /// The smallest budget accepted in that unit.
        min: usize,
    },
    /// The overlap would leave too little room for new text in each chunk.
    #[error("overlap of {overlap} must be below half the budget ({budget})")]
    OverlapTooLarge {
        /// The overlap asked for.
        overlap: usize,
        /// The budget.
        budget: usize,
    },
    /// A sizer could not be loaded (a tokenizer file missing, unreadable or invalid).
    #[error("cannot load the sizer {name}: {reason}")]
    Sizer {
        /// What was loaded: a path or a name.
        name: String,
        /// Why it failed.
        reason: String,
    },
}

/// The smallest budget, in units of one char's largest size: a header of a quarter of the
/// budget and a body that still holds several chars.
const MIN_BUDGET_CHARS: usize = 8;

/// Where the packer cuts text that needs several chunks, among the cuts that give the fewest
/// chunks at the strongest boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Cuts {
    /// Chunks as even in size as the boundaries allow: what `cleave chunk` writes.
    #[default]
    Balanced,
    /// Chunks as full as the boundaries allow but one, which takes the rest (never a crumb),
    /// wherever the boundaries let it fill the others best: parts that fill packs, and a
    /// remainder small enough to share a pack with other files. What packs ask for.
    Fill,
}

/// How to chunk: the budget, the sizer that counts it, overlap, whether headers are injected,
/// and where text that needs several chunks is cut.
///
/// Two configurations are equal when budget, overlap, headers and cuts are, and their sizers
/// have the same name ([`ChunkSizer::name`]).
#[derive(Clone)]
pub struct ChunkConfig {
    budget: usize,
    sizer: SizerChoice,
    overlap: usize,
    headers: bool,
    cuts: Cuts,
}

/// A built-in unit (its sizer is a static) or a sizer brought by the caller.
#[derive(Clone)]
enum SizerChoice {
    Unit(Unit),
    Custom(Arc<dyn ChunkSizer>),
}

impl ChunkConfig {
    /// A configuration with `budget` counted in `unit`, headers on, no overlap.
    pub fn new(budget: usize, unit: Unit) -> Result<Self, ConfigError> {
        Self::build(budget, SizerChoice::Unit(unit))
    }

    /// A configuration with `budget` counted by any sizer: a Hugging Face tokenizer
    /// (`HfTokenizer`, with the `hf-tokenizers` feature), or one of the caller's own. Headers on,
    /// no overlap.
    ///
    /// The packer trusts what the sizer says of itself: a sizer that does not override
    /// [`ChunkSizer::is_additive`] and [`ChunkSizer::line_seams`] is treated as neither additive
    /// nor splitting anywhere, and every chunk is measured whole, which is exact whatever the
    /// sizer does.
    pub fn from_sizer(budget: usize, sizer: Arc<dyn ChunkSizer>) -> Result<Self, ConfigError> {
        Self::build(budget, SizerChoice::Custom(sizer))
    }

    fn build(budget: usize, sizer: SizerChoice) -> Result<Self, ConfigError> {
        let config = Self { budget, sizer, overlap: 0, headers: true, cuts: Cuts::Balanced };
        config.validated()
    }

    fn validated(self) -> Result<Self, ConfigError> {
        let min = MIN_BUDGET_CHARS * self.sizer().max_char_size();
        if self.budget < min {
            return Err(ConfigError::BudgetTooSmall {
                budget: self.budget,
                unit: self.unit_name(),
                min,
            });
        }
        if self.overlap > 0 && self.overlap * 2 >= self.budget {
            return Err(ConfigError::OverlapTooLarge {
                overlap: self.overlap,
                budget: self.budget,
            });
        }
        Ok(self)
    }

    /// The same configuration with another budget (same sizer, overlap, headers and cuts),
    /// validated again.
    pub fn with_budget(mut self, budget: usize) -> Result<Self, ConfigError> {
        self.budget = budget;
        self.validated()
    }

    /// Repeats up to `overlap` units of the previous chunk's end at the start of each chunk.
    /// The overlap must stay below half the budget.
    pub fn with_overlap(mut self, overlap: usize) -> Result<Self, ConfigError> {
        if overlap > 0 && overlap * 2 >= self.budget {
            return Err(ConfigError::OverlapTooLarge { overlap, budget: self.budget });
        }
        self.overlap = overlap;
        Ok(self)
    }

    /// Turns context headers on or off.
    pub fn with_headers(mut self, headers: bool) -> Self {
        self.headers = headers;
        self
    }

    /// Where text that needs several chunks is cut ([`Cuts::Balanced`] unless set).
    pub fn with_cuts(mut self, cuts: Cuts) -> Self {
        self.cuts = cuts;
        self
    }

    /// The budget for header + body.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// The built-in unit of the budget; `None` with a sizer of the caller's.
    pub fn unit(&self) -> Option<Unit> {
        match &self.sizer {
            SizerChoice::Unit(unit) => Some(*unit),
            SizerChoice::Custom(_) => None,
        }
    }

    /// The sizer that counts the budget.
    pub fn sizer(&self) -> &dyn ChunkSizer {
        match &self.sizer {
            SizerChoice::Unit(unit) => unit.sizer(),
            SizerChoice::Custom(sizer) => sizer.as_ref(),
        }
    }

    /// The name of what the budget counts, for reports: `chars`, `tokens:o200k`, or a
    /// sizer's own name.
    pub fn unit_name(&self) -> String {
        self.sizer().name()
    }

    /// The overlap in units.
    pub fn overlap(&self) -> usize {
        self.overlap
    }

    /// Whether headers are injected.
    pub fn headers(&self) -> bool {
        self.headers
    }

    /// Where text that needs several chunks is cut.
    pub fn cuts(&self) -> Cuts {
        self.cuts
    }

    /// The most a header may take: a quarter of the budget, so bodies keep most of the room.
    pub fn header_cap(&self) -> usize {
        self.budget / 4
    }
}

impl fmt::Debug for ChunkConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkConfig")
            .field("budget", &self.budget)
            .field("sizer", &self.unit_name())
            .field("overlap", &self.overlap)
            .field("headers", &self.headers)
            .field("cuts", &self.cuts)
            .finish()
    }
}

impl PartialEq for ChunkConfig {
    fn eq(&self, other: &Self) -> bool {
        self.budget == other.budget
            && self.overlap == other.overlap
            && self.headers == other.headers
            && self.cuts == other.cuts
            && match (&self.sizer, &other.sizer) {
                (SizerChoice::Unit(a), SizerChoice::Unit(b)) => a == b,
                _ => self.unit_name() == other.unit_name(),
            }
    }
}

impl Eq for ChunkConfig {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_bad_budgets() {
        assert!(ChunkConfig::new(0, Unit::Chars).is_err());
        assert!(ChunkConfig::new(7, Unit::Chars).is_err());
        assert!(ChunkConfig::new(8, Unit::Chars).is_ok());
        assert!(ChunkConfig::new(31, Unit::Bytes).is_err());
        assert!(ChunkConfig::new(32, Unit::Bytes).is_ok());
        let err = ChunkConfig::new(3, Unit::Bytes).unwrap_err();
        assert_eq!(err.to_string(), "budget of 3 bytes is too small: it must be at least 32");
    }

    #[test]
    fn refuses_overlap_not_below_budget() {
        let cfg = ChunkConfig::new(100, Unit::Chars).unwrap();
        assert!(cfg.clone().with_overlap(100).is_err());
        assert!(cfg.clone().with_overlap(50).is_err());
        assert_eq!(cfg.with_overlap(49).unwrap().overlap(), 49);
    }

    #[test]
    fn another_budget_keeps_the_rest_and_is_validated_again() {
        let cfg = ChunkConfig::new(400, Unit::Chars).unwrap().with_overlap(100).unwrap();
        let cfg = cfg.with_headers(false).with_cuts(Cuts::Fill);
        let smaller = cfg.clone().with_budget(300).unwrap();
        assert_eq!((smaller.budget(), smaller.overlap()), (300, 100));
        assert!(!smaller.headers());
        assert_eq!(smaller.cuts(), Cuts::Fill);
        assert_ne!(smaller, cfg);
        assert_eq!(smaller.with_budget(400).unwrap(), cfg);
        assert!(cfg.clone().with_budget(200).is_err(), "overlap not below half the budget");
        assert!(cfg.with_budget(7).is_err());
        assert_ne!(
            ChunkConfig::new(400, Unit::Chars).unwrap(),
            ChunkConfig::new(400, Unit::Chars).unwrap().with_cuts(Cuts::Fill)
        );
    }

    /// A sizer of the caller's, saying nothing of itself but its size and name.
    struct Words;

    impl ChunkSizer for Words {
        fn size(&self, text: &str) -> usize {
            text.split_whitespace().count()
        }
        fn name(&self) -> String {
            "words".to_owned()
        }
    }

    #[test]
    fn takes_any_sizer() {
        let cfg = ChunkConfig::from_sizer(100, Arc::new(Words)).unwrap();
        assert_eq!(cfg.unit(), None);
        assert_eq!(cfg.unit_name(), "words");
        assert_eq!(cfg.sizer().size("two words"), 2);
        assert!(!cfg.sizer().is_additive(), "a foreign sizer is not additive unless it says so");
        assert_eq!(cfg.sizer().line_seams(), crate::sizer::LineSeams::None);
        assert_eq!(cfg, ChunkConfig::from_sizer(100, Arc::new(Words)).unwrap());
        assert_ne!(cfg, ChunkConfig::new(100, Unit::Chars).unwrap());
        assert_eq!(ChunkConfig::new(100, Unit::Chars).unwrap().unit(), Some(Unit::Chars));
        let err = ChunkConfig::from_sizer(31, Arc::new(Words)).unwrap_err();
        assert_eq!(err.to_string(), "budget of 31 words is too small: it must be at least 32");
        assert!(format!("{cfg:?}").contains("\"words\""));
    }
}
