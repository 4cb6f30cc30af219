//! Lifetime and counter rules: which events begin, end or mark the
//! lifetime of an object that firmware tracks by id, and which set a
//! counter of its pool. A rule names an event (optionally only those whose
//! fields hold given values) and the fields it reads; rules apply to the
//! events of every format as [`crate::EventRow`]s name them.

/// What a rule does with each event it matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleAction {
    /// Begins the lifetime of the object whose key is the `key` field.
    Begin,
    /// Ends it.
    End,
    /// Puts an instant on it, with the `value` field if the rule names one.
    Mark,
    /// Sets the counter `counter` of the pool whose key is the `key` field
    /// to the `value` field.
    Counter,
}

impl RuleAction {
    pub const ALL: [RuleAction; 4] = [
        RuleAction::Begin,
        RuleAction::End,
        RuleAction::Mark,
        RuleAction::Counter,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RuleAction::Begin => "begin",
            RuleAction::End => "end",
            RuleAction::Mark => "mark",
            RuleAction::Counter => "counter",
        }
    }
}

/// One rule. Field names are those of the event as the format records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The event's name (`net_buf_allocated`, ThreadX `user`, tband `evtmarker`).
    pub event: String,
    /// Fields that must hold these integer values (e.g. a ThreadX `event_id`).
    pub conditions: Vec<(String, i64)>,
    pub action: RuleAction,
    /// The kind of object (`net_buf`): lifetimes and pools are per kind.
    pub kind: String,
    /// The field whose value identifies the object (for a counter: the pool).
    pub key: String,
    /// Begin: the field that names the object.
    pub name: Option<String>,
    /// Begin: the field whose value is the object's pool.
    pub pool: Option<String>,
    /// Begin and counter: the field that names the pool.
    pub pool_name: Option<String>,
    /// Mark: the field shown with the instant; counter: the counter's value.
    pub value: Option<String>,
    /// Counter: the counter's name (`free`).
    pub counter: Option<String>,
}

/// A set of rules, applied in order: an event may match several.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    pub rules: Vec<Rule>,
}

impl Rules {
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether any rule matches events named `name`.
    pub fn names_event(&self, name: &str) -> bool {
        self.rules.iter().any(|r| r.event == name)
    }

    /// The rules of both sets, `self`'s first.
    pub fn and(mut self, more: Rules) -> Rules {
        self.rules.extend(more.rules);
        self
    }
}
