//! Options of a run, validated once when built: after that, packing cannot fail.

use crate::sizer::Unit;

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
}

/// The smallest budget, in units of one char's largest size: a header of a quarter of the
/// budget and a body that still holds several chars.
const MIN_BUDGET_CHARS: usize = 8;

/// How to chunk: the budget, its unit, overlap and whether headers are injected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkConfig {
    budget: usize,
    unit: Unit,
    overlap: usize,
    headers: bool,
}

impl ChunkConfig {
    /// A configuration with `budget` counted in `unit`, headers on, no overlap.
    pub fn new(budget: usize, unit: Unit) -> Result<Self, ConfigError> {
        let min = MIN_BUDGET_CHARS * unit.max_char_size();
        if budget < min {
            return Err(ConfigError::BudgetTooSmall { budget, unit: unit.name(), min });
        }
        Ok(Self { budget, unit, overlap: 0, headers: true })
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

    /// The budget for header + body.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// The unit of the budget.
    pub fn unit(&self) -> Unit {
        self.unit
    }

    /// The overlap in units.
    pub fn overlap(&self) -> usize {
        self.overlap
    }

    /// Whether headers are injected.
    pub fn headers(&self) -> bool {
        self.headers
    }

    /// The most a header may take: a quarter of the budget, so bodies keep most of the room.
    pub fn header_cap(&self) -> usize {
        self.budget / 4
    }
}

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
}
