//! The builder of [`TrackedObjects`]: applies lifetime rules to the events of a
//! trace as they are decoded, and when the model is built, ends what is
//! still live and reports what did not add up as anomalies.

use crate::id_index::{IdIndex, IdMap};
use crate::lanes::Lanes;
use crate::rules::{Rule, RuleAction, Rules};
use crate::tracked::{
    CounterValue, TrackedCounter, TrackedKey, TrackedLifetime, TrackedMark, TrackedObjects,
    TrackedPool,
};
use crate::{Anomaly, AnomalyKind, ArgValue, EventRow, Model, StrId};

/// What went wrong with one rule, counted: one anomaly row per rule and problem.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Problem {
    /// The event lacks a field the rule names.
    MissingField(FieldRole),
    /// An end or mark of an object that is not live.
    NotLive,
    /// A begin of an object that is already live.
    AlreadyLive,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum FieldRole {
    Condition(usize),
    Key,
    Name,
    Pool,
    PoolName,
    Value,
}

/// Where a rule's field is among the arguments of one class of events.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FieldAt {
    /// The rule names no such field.
    Unnamed,
    /// The rule names a field the class's events do not have.
    Missing,
    At(u32),
}

impl FieldAt {
    fn find(row: &EventRow<'_>, field: Option<&str>) -> FieldAt {
        match field {
            None => FieldAt::Unnamed,
            Some(field) => match row.args.iter().position(|(name, _)| *name == field) {
                Some(at) => FieldAt::At(at as u32),
                None => FieldAt::Missing,
            },
        }
    }

    /// The field's value in `row`, if the class has it.
    #[inline]
    fn of<'a>(self, row: &EventRow<'a>) -> Option<ArgValue<'a>> {
        match self {
            FieldAt::At(at) => row.args.get(at as usize).map(|&(_, value)| value),
            FieldAt::Unnamed | FieldAt::Missing => None,
        }
    }

    /// The value of a field the rule may leave unnamed: `Err` if it names
    /// one the class lacks.
    #[inline]
    fn optional<'a>(self, row: &EventRow<'a>) -> Result<Option<ArgValue<'a>>, ()> {
        match self {
            FieldAt::Unnamed => Ok(None),
            at => at.of(row).map(Some).ok_or(()),
        }
    }
}

/// One rule compiled for one class of events: all that applying it reads,
/// its fields found among the class's arguments.
#[derive(Clone, Copy)]
struct ClassRule {
    /// The rule's index, which its anomalies are counted by.
    rule: u32,
    action: RuleAction,
    /// The kind's index in `tracked.kinds`.
    kind: u32,
    /// The event's name in `tracked.names` (what a mark shows).
    event: StrId,
    /// The counter's name index.
    counter: u32,
    /// The rule's conditions, in [`LifetimeBuilder::conditions`].
    conditions: u32,
    condition_count: u32,
    key: FieldAt,
    name: FieldAt,
    pool: FieldAt,
    pool_name: FieldAt,
    value: FieldAt,
}

/// The rules that apply to one class of events (those its name matches),
/// and the number of arguments the class's events have.
struct Class {
    arg_count: usize,
    rules: Vec<ClassRule>,
}

/// An object as the builder's maps key it: its kind, and its integer key
/// or the number of its text key (in [`Applying::text_keys`]), so
/// that a lookup hashes two words and copies nothing.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Slot {
    /// The kind, shifted left one bit; the low bit is set for a text key.
    kind_text: u64,
    key: u64,
}

/// A live object: its lifetime's row, and the lane it holds in its pool
/// (or kind).
#[derive(Clone, Copy)]
struct Live {
    lifetime: u32,
    pool: Option<u32>,
    lane: u32,
}

struct Tally {
    count: u64,
    first_ns: u64,
    last_ns: u64,
    core_id: u32,
    example: String,
}

/// Applies [`Rules`] to events, one [`LifetimeBuilder::event`] call each
/// in time order, then [`LifetimeBuilder::finish`] puts the result in the
/// model. A trace read as it grows lends the result out between its pieces
/// ([`LifetimeBuilder::lend`]).
pub struct LifetimeBuilder {
    rules: Vec<Rule>,
    /// The event names the rules match, each with its rules' indices.
    events: Vec<(String, Vec<usize>)>,
    /// Per rule: what compiling it for a class adds its fields to.
    compiled: Vec<ClassRule>,
    /// By [`EventRow::class`]: its index in `class_rules`.
    classes: IdIndex<u32, u32>,
    class_rules: Vec<Class>,
    /// The compiled rules' conditions: where each field is, and the value
    /// it must hold.
    conditions: Vec<(FieldAt, i64)>,
    state: Applying,
}

/// What applying the rules has made so far.
struct Applying {
    counter_names: Vec<String>,
    tracked: TrackedObjects,
    /// The number of each text key seen, for its [`Slot`].
    text_keys: IdMap<Box<str>, u64>,
    /// The index in `tracked.keys` of each key begun, by whether it is
    /// text and its [`Slot::key`].
    key_ids: IdMap<(bool, u64), u32>,
    live: IdMap<Slot, Live>,
    pools: IdMap<Slot, u32>,
    /// Per pool: its counters, each by its name's index (a pool has few).
    pool_counters: Vec<Vec<(u32, u32)>>,
    /// The pool found last: events of a pool come in runs.
    last_pool: Option<(Slot, u32)>,
    /// Busy lanes: per pool, then per kind for lifetimes without a pool.
    pool_lanes: Vec<Lanes>,
    kind_lanes: Vec<Lanes>,
    tallies: IdMap<(usize, Problem), Tally>,
    tally_order: Vec<(usize, Problem)>,
    /// The anomalies put in the model lent out, to take back with it.
    lent_anomalies: Vec<Anomaly>,
}

impl LifetimeBuilder {
    pub fn new(rules: Rules) -> LifetimeBuilder {
        let rules = rules.rules;
        let mut events: Vec<(String, Vec<usize>)> = Vec::new();
        let mut kinds: Vec<String> = Vec::new();
        let mut counter_names: Vec<String> = Vec::new();
        let mut tracked = TrackedObjects::default();
        let mut compiled = Vec::with_capacity(rules.len());
        for (i, rule) in rules.iter().enumerate() {
            match events.iter_mut().find(|(name, _)| *name == rule.event) {
                Some((_, list)) => list.push(i),
                None => events.push((rule.event.clone(), vec![i])),
            }
            compiled.push(ClassRule {
                rule: i as u32,
                action: rule.action,
                kind: index_of(&mut kinds, &rule.kind),
                event: tracked.names.intern(rule.event.as_bytes()),
                counter: index_of(&mut counter_names, rule.counter.as_deref().unwrap_or("")),
                conditions: 0,
                condition_count: 0,
                key: FieldAt::Unnamed,
                name: FieldAt::Unnamed,
                pool: FieldAt::Unnamed,
                pool_name: FieldAt::Unnamed,
                value: FieldAt::Unnamed,
            });
        }
        tracked.kinds = kinds;
        let state = Applying {
            kind_lanes: vec![Lanes::default(); tracked.kinds.len()],
            tracked,
            counter_names,
            text_keys: IdMap::default(),
            key_ids: IdMap::default(),
            live: IdMap::default(),
            pools: IdMap::default(),
            pool_counters: Vec::new(),
            pool_lanes: Vec::new(),
            tallies: IdMap::default(),
            tally_order: Vec::new(),
            last_pool: None,
            lent_anomalies: Vec::new(),
        };
        LifetimeBuilder {
            rules,
            events,
            compiled,
            classes: IdIndex::default(),
            class_rules: Vec::new(),
            conditions: Vec::new(),
            state,
        }
    }

    /// Applies the rules that match the event; events without a time
    /// (metadata) match none. The rules are compiled once per class of
    /// events (again if a class's events change their number of
    /// arguments).
    #[inline]
    pub fn event(&mut self, row: &EventRow<'_>) {
        let Some(ts) = row.ts_ns else { return };
        let class = match self.classes.get(row.class) {
            Some(&c) if self.class_rules[c as usize].arg_count == row.args.len() => c,
            found => self.compile(row, found.copied()),
        } as usize;
        for rule in &self.class_rules[class].rules {
            self.state.apply(rule, &self.conditions, ts, row);
        }
    }

    /// Compiles the rules of the event's class, finding their fields among
    /// its arguments, into `class_rules` at `at` or at its end.
    #[cold]
    fn compile(&mut self, row: &EventRow<'_>, at: Option<u32>) -> u32 {
        let named = self.events.iter().find(|(name, _)| *name == row.name);
        let rules = named.map_or(&[][..], |(_, rules)| rules.as_slice());
        let mut class = Class {
            arg_count: row.args.len(),
            rules: Vec::with_capacity(rules.len()),
        };
        for &r in rules {
            let rule = &self.rules[r];
            let conditions = self.conditions.len() as u32;
            (self.conditions).extend(
                (rule.conditions.iter()).map(|(f, wanted)| (FieldAt::find(row, Some(f)), *wanted)),
            );
            let field = |f: &Option<String>| FieldAt::find(row, f.as_deref());
            class.rules.push(ClassRule {
                conditions,
                condition_count: rule.conditions.len() as u32,
                key: FieldAt::find(row, Some(&rule.key)),
                name: field(&rule.name),
                pool: field(&rule.pool),
                pool_name: field(&rule.pool_name),
                value: field(&rule.value),
                ..self.compiled[r]
            });
        }
        match at {
            Some(at) => {
                self.class_rules[at as usize] = class;
                at
            }
            None => {
                let at = self.class_rules.len() as u32;
                self.class_rules.push(class);
                self.classes.insert(row.class, at);
                at
            }
        }
    }

    /// Puts the objects tracked so far in `model`, as
    /// [`finish`](Self::finish) would were the trace to end at the model's
    /// end: what is still live ends there, truncated. Take them back with
    /// [`take_back`](Self::take_back) before the next event.
    pub fn lend(&mut self, model: &mut Model) {
        self.state.put_in(&self.rules, model);
    }

    /// Takes back the objects [`lend`](Self::lend) put in `model`, and the
    /// anomalies it added: what was live goes on.
    pub fn take_back(&mut self, model: &mut Model) {
        let state = &mut self.state;
        state.tracked = std::mem::take(&mut model.tracked);
        for live in state.live.values() {
            let lifetimes = &mut state.tracked.lifetimes;
            lifetimes.update(live.lifetime as usize, |l| l.truncated = false);
        }
        for lent in state.lent_anomalies.drain(..) {
            if let Some(at) = model.anomalies.iter().rposition(|a| *a == lent) {
                model.anomalies.remove(at);
            }
        }
    }

    /// Ends what is still live at the end of the trace, and puts the
    /// objects and the anomalies in `model`.
    pub fn finish(mut self, model: &mut Model) {
        self.state.put_in(&self.rules, model);
    }
}

impl Applying {
    fn apply(&mut self, c: &ClassRule, conditions: &[(FieldAt, i64)], ts: u64, row: &EventRow<'_>) {
        let r = c.rule as usize;
        let conditions = &conditions[c.conditions as usize..][..c.condition_count as usize];
        for (i, &(field, wanted)) in conditions.iter().enumerate() {
            match field.of(row) {
                Some(v) if int_of(v) == Some(wanted) => {}
                Some(_) => return,
                None => return self.missing(r, FieldRole::Condition(i), ts, row),
            }
        }
        let Some(key) = c.key.of(row) else {
            return self.missing(r, FieldRole::Key, ts, row);
        };
        let slot = self.slot(c.kind, key);
        match c.action {
            RuleAction::Begin => self.begin(c, key, slot, ts, row),
            RuleAction::End => match self.live.remove(&slot) {
                Some(live) => {
                    let lifetimes = &mut self.tracked.lifetimes;
                    lifetimes.end_lifetime_at(live.lifetime as usize, ts, row.core_id, row.actor);
                    self.lanes_of(c.kind, live.pool).release(live.lane);
                }
                None => {
                    let key = self.key_text(c.kind, key);
                    self.tally(r, Problem::NotLive, ts, row, key)
                }
            },
            RuleAction::Mark => match self.live.get(&slot) {
                Some(&Live { lifetime, .. }) => {
                    let Ok(value) = c.value.optional(row) else {
                        return self.missing(r, FieldRole::Value, ts, row);
                    };
                    self.tracked.marks.push(TrackedMark {
                        ts_ns: ts,
                        lifetime,
                        event: c.event,
                        value: value.and_then(int_of),
                    });
                }
                None => {
                    let key = self.key_text(c.kind, key);
                    self.tally(r, Problem::NotLive, ts, row, key)
                }
            },
            RuleAction::Counter => {
                let Some(value) = c.value.of(row).and_then(int_of) else {
                    return self.missing(r, FieldRole::Value, ts, row);
                };
                let Some(pool) = self.pool(c, key, slot, ts, row) else {
                    return;
                };
                let counters = &mut self.pool_counters[pool as usize];
                let counter = match counters.iter().find(|&&(n, _)| n == c.counter) {
                    Some(&(_, counter)) => counter,
                    None => {
                        let counter = self.tracked.counters.len() as u32;
                        counters.push((c.counter, counter));
                        self.tracked.counters.push(TrackedCounter {
                            pool,
                            name: self.counter_names[c.counter as usize].clone(),
                        });
                        counter
                    }
                };
                self.tracked.counter_values.push(CounterValue {
                    ts_ns: ts,
                    counter,
                    value,
                });
            }
        }
    }

    fn begin(&mut self, c: &ClassRule, key: ArgValue<'_>, slot: Slot, ts: u64, row: &EventRow<'_>) {
        let r = c.rule as usize;
        let name = match c.name.optional(row) {
            Ok(Some(v)) => self.intern_value(v),
            Ok(None) => StrId::EMPTY,
            Err(()) => return self.missing(r, FieldRole::Name, ts, row),
        };
        let pool = match c.pool.optional(row) {
            Ok(Some(v)) => {
                let slot = self.slot(c.kind, v);
                match self.pool(c, v, slot, ts, row) {
                    Some(pool) => Some(pool),
                    None => return,
                }
            }
            Ok(None) => None,
            Err(()) => return self.missing(r, FieldRole::Pool, ts, row),
        };
        if let Some(earlier) = self.live.remove(&slot) {
            // The earlier lifetime's end was not recorded: it ends here,
            // as much as is known of it.
            self.tracked
                .lifetimes
                .update(earlier.lifetime as usize, |l| {
                    l.end_ns = ts;
                    l.truncated = true;
                });
            self.lanes_of(c.kind, earlier.pool).release(earlier.lane);
            let text = self.key_text(c.kind, key);
            self.tally(r, Problem::AlreadyLive, ts, row, text);
        }
        let lane = self.lanes_of(c.kind, pool).take();
        let lifetime = self.tracked.lifetimes.len() as u32;
        (self.live).insert(
            slot,
            Live {
                lifetime,
                pool,
                lane,
            },
        );
        let key = self.key_id(slot, key);
        self.tracked.lifetimes.push(TrackedLifetime {
            kind: c.kind,
            key,
            name,
            pool,
            slot: lane,
            start_ns: ts,
            end_ns: ts,
            truncated: false,
            begin_core: row.core_id,
            end_core: None,
            begun_by: row.actor,
            ended_by: None,
        });
    }

    /// The index in `tracked.keys` of the key of the object in `slot`.
    fn key_id(&mut self, slot: Slot, key: ArgValue<'_>) -> u32 {
        let next = self.tracked.keys.len() as u32;
        let id = *(self.key_ids)
            .entry((slot.kind_text & 1 == 1, slot.key))
            .or_insert(next);
        if id == next {
            self.tracked.keys.push(key_of(key));
        }
        id
    }

    /// The pool of the rule's kind keyed `key`, made at its first mention; named by
    /// the rule's `pool_name` field when the event has one.
    fn pool(
        &mut self,
        c: &ClassRule,
        key: ArgValue<'_>,
        slot: Slot,
        ts: u64,
        row: &EventRow<'_>,
    ) -> Option<u32> {
        let Ok(name) = c.pool_name.optional(row) else {
            self.missing(c.rule as usize, FieldRole::PoolName, ts, row);
            return None;
        };
        if let Some((last, pool)) = self.last_pool {
            if last == slot {
                return Some(pool);
            }
        }
        if let Some(&pool) = self.pools.get(&slot) {
            self.last_pool = Some((slot, pool));
            return Some(pool);
        }
        let pool = self.tracked.pools.len() as u32;
        let key = key_of(key);
        let name = match name {
            Some(ArgValue::Str(bytes)) => String::from_utf8_lossy(bytes).into_owned(),
            Some(value) => key_of(value).to_string(),
            None => key.to_string(),
        };
        self.tracked.pools.push(TrackedPool {
            kind: c.kind,
            name,
            key,
            slots: 0,
        });
        self.pools.insert(slot, pool);
        self.pool_lanes.push(Lanes::default());
        self.pool_counters.push(Vec::new());
        Some(pool)
    }

    fn lanes_of(&mut self, kind: u32, pool: Option<u32>) -> &mut Lanes {
        match pool {
            Some(pool) => &mut self.pool_lanes[pool as usize],
            None => &mut self.kind_lanes[kind as usize],
        }
    }

    fn intern_value(&mut self, value: ArgValue<'_>) -> StrId {
        match value {
            ArgValue::Str(bytes) => self.tracked.names.intern(bytes),
            other => self
                .tracked
                .names
                .intern(key_of(other).to_string().as_bytes()),
        }
    }

    /// The slot of the object of `kind` keyed `key`.
    #[inline]
    fn slot(&mut self, kind: u32, key: ArgValue<'_>) -> Slot {
        let kind = u64::from(kind) << 1;
        match key {
            ArgValue::Int(v) => Slot {
                kind_text: kind,
                key: v as u64,
            },
            ArgValue::UInt(v) => Slot {
                kind_text: kind,
                key: v,
            },
            ArgValue::Str(bytes) => Slot {
                kind_text: kind | 1,
                key: self.text_key(bytes),
            },
        }
    }

    /// The number of a text key, as [`key_of`] makes its text.
    fn text_key(&mut self, bytes: &[u8]) -> u64 {
        let text = String::from_utf8_lossy(bytes);
        if let Some(&n) = self.text_keys.get(&*text) {
            return n;
        }
        let n = self.text_keys.len() as u64;
        self.text_keys.insert(text.into(), n);
        n
    }

    fn key_text(&self, kind: u32, key: ArgValue<'_>) -> String {
        format!("{} {}", self.tracked.kind(kind), key_of(key))
    }

    /// Counts an event that lacks the field rule `r` names for `role`.
    fn missing(&mut self, r: usize, role: FieldRole, ts: u64, row: &EventRow<'_>) {
        self.tally(r, Problem::MissingField(role), ts, row, String::new());
    }

    fn tally(&mut self, r: usize, problem: Problem, ts: u64, row: &EventRow<'_>, example: String) {
        let tally = self.tallies.entry((r, problem)).or_insert_with(|| {
            self.tally_order.push((r, problem));
            Tally {
                count: 0,
                first_ns: ts,
                last_ns: ts,
                core_id: row.core_id,
                example,
            }
        });
        tally.count += 1;
        tally.last_ns = ts;
    }

    /// Ends what is live at the model's end, and puts the objects and the
    /// anomalies in `model`.
    fn put_in(&mut self, rules: &[Rule], model: &mut Model) {
        let end = model.info.duration_ns;
        for live in self.live.values() {
            self.tracked.lifetimes.update(live.lifetime as usize, |l| {
                l.end_ns = end;
                l.truncated = true;
            });
        }
        for (pool, lanes) in self.tracked.pools.iter_mut().zip(&self.pool_lanes) {
            pool.slots = lanes.count();
        }
        for (r, problem) in self.tally_order.iter().copied() {
            let tally = &self.tallies[&(r, problem)];
            let (kind, detail) = describe(&rules[r], problem, &tally.example);
            self.lent_anomalies.push(Anomaly {
                start_ns: tally.first_ns,
                end_ns: tally.last_ns,
                core_id: Some(tally.core_id),
                kind,
                count: tally.count,
                detail,
            });
        }
        model.anomalies.extend(self.lent_anomalies.iter().cloned());
        model
            .anomalies
            .sort_by_key(|a| (a.end_ns, a.start_ns, a.kind));
        model.tracked = std::mem::take(&mut self.tracked);
    }
}

/// The anomaly kind and detail of a rule's problem.
fn describe(rule: &Rule, problem: Problem, example: &str) -> (AnomalyKind, String) {
    let event = &rule.event;
    match problem {
        Problem::MissingField(role) => {
            let field = match role {
                FieldRole::Condition(c) => rule.conditions[c].0.as_str(),
                FieldRole::Key => rule.key.as_str(),
                FieldRole::Name => rule.name.as_deref().unwrap_or(""),
                FieldRole::Pool => rule.pool.as_deref().unwrap_or(""),
                FieldRole::PoolName => rule.pool_name.as_deref().unwrap_or(""),
                FieldRole::Value => rule.value.as_deref().unwrap_or(""),
            };
            (
                AnomalyKind::Inconsistent,
                format!(
                    "a {} rule names field `{field}`, which event {event} does not have (or not as an integer); the rule skipped these events",
                    rule.action.as_str()
                ),
            )
        }
        Problem::NotLive if rule.action == RuleAction::End => (
            AnomalyKind::EndWithoutBegin,
            format!("{event} ended {example}, which had not begun (first of these)"),
        ),
        Problem::NotLive => (
            AnomalyKind::Inconsistent,
            format!("{event} marked {example}, which was not live (first of these)"),
        ),
        Problem::AlreadyLive => (
            AnomalyKind::Inconsistent,
            format!(
                "{event} began {example} while it was live; its earlier lifetime ends there, truncated (first of these)"
            ),
        ),
    }
}

fn int_of(value: ArgValue<'_>) -> Option<i64> {
    match value {
        ArgValue::Int(v) => Some(v),
        ArgValue::UInt(v) => Some(v as i64),
        ArgValue::Str(_) => None,
    }
}

fn key_of(value: ArgValue<'_>) -> TrackedKey {
    match value {
        ArgValue::Int(v) => TrackedKey::Int(v as u64),
        ArgValue::UInt(v) => TrackedKey::Int(v),
        ArgValue::Str(bytes) => TrackedKey::Text(String::from_utf8_lossy(bytes).into()),
    }
}

fn index_of(list: &mut Vec<String>, name: &str) -> u32 {
    match list.iter().position(|n| n == name) {
        Some(i) => i as u32,
        None => {
            list.push(name.to_string());
            (list.len() - 1) as u32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    fn rule(event: &str, action: RuleAction, key: &str) -> Rule {
        Rule {
            event: event.into(),
            conditions: Vec::new(),
            action,
            kind: "buf".into(),
            key: key.into(),
            name: None,
            pool: None,
            pool_name: None,
            value: None,
            counter: None,
        }
    }

    fn rules() -> Rules {
        Rules {
            rules: vec![
                Rule {
                    name: Some("name".into()),
                    pool: Some("pool".into()),
                    pool_name: Some("name".into()),
                    ..rule("alloc", RuleAction::Begin, "buf")
                },
                rule("free", RuleAction::End, "buf"),
                Rule {
                    value: Some("count".into()),
                    ..rule("ref", RuleAction::Mark, "buf")
                },
                Rule {
                    counter: Some("free".into()),
                    value: Some("free".into()),
                    ..rule("alloc", RuleAction::Counter, "pool")
                },
            ],
        }
    }

    fn event(b: &mut LifetimeBuilder, ts: u64, name: &str, args: &[(&str, ArgValue<'_>)]) {
        let classes = ["alloc", "free", "ref"];
        b.event(&EventRow {
            ts_ns: Some(ts),
            core_id: 0,
            class: classes.iter().position(|c| *c == name).unwrap() as u32,
            name,
            args,
            actor: None,
        });
    }

    fn alloc(b: &mut LifetimeBuilder, ts: u64, buf: u64, free: u64) {
        let args = [
            ("pool", ArgValue::UInt(0x100)),
            ("free", ArgValue::UInt(free)),
            ("buf", ArgValue::UInt(buf)),
            ("name", ArgValue::Str(b"rx")),
        ];
        event(b, ts, "alloc", &args);
    }

    #[test]
    fn lifetimes_marks_and_counters_follow_the_rules() {
        let rules = rules();
        let mut b = LifetimeBuilder::new(rules);
        alloc(&mut b, 10, 0xA, 3);
        alloc(&mut b, 20, 0xB, 2);
        event(
            &mut b,
            25,
            "ref",
            &[("buf", ArgValue::UInt(0xA)), ("count", ArgValue::UInt(2))],
        );
        event(&mut b, 30, "free", &[("buf", ArgValue::UInt(0xA))]);
        alloc(&mut b, 40, 0xC, 2);
        let mut model = Model::default();
        model.info.duration_ns = 50;
        b.finish(&mut model);
        let o = &model.tracked;
        let spans: Vec<_> = o
            .lifetimes
            .iter()
            .map(|l| {
                (
                    o.key(&l).to_string(),
                    l.start_ns,
                    l.end_ns,
                    l.truncated,
                    l.slot,
                    o.names.get(l.name),
                )
            })
            .collect();
        assert_eq!(
            spans,
            [
                ("0xa".to_string(), 10, 30, false, 0, "rx"),
                ("0xb".to_string(), 20, 50, true, 1, "rx"),
                ("0xc".to_string(), 40, 50, true, 0, "rx"),
            ]
        );
        assert_eq!(o.pools.len(), 1);
        assert_eq!((o.pools[0].name.as_str(), o.pools[0].slots), ("rx", 2));
        assert_eq!(o.marks.len(), 1);
        let mark = o.marks.first().expect("a mark");
        assert_eq!((mark.lifetime, mark.value), (0, Some(2)));
        let free: Vec<_> = o
            .counter_values
            .iter()
            .map(|v| (v.ts_ns, v.value))
            .collect();
        assert_eq!(free, [(10, 3), (20, 2), (40, 2)]);
        assert_eq!(o.counters[0].name, "free");
        assert!(model.anomalies.is_empty());
    }

    #[test]
    fn text_keys_name_objects_apart_by_kind() {
        let rules = Rules {
            rules: vec![
                rule("alloc", RuleAction::Begin, "name"),
                rule("free", RuleAction::End, "name"),
                Rule {
                    kind: "other".into(),
                    ..rule("alloc", RuleAction::Begin, "name")
                },
            ],
        };
        let mut b = LifetimeBuilder::new(rules);
        let named = |text: &'static str| [("name", ArgValue::Str(text.as_bytes()))];
        event(&mut b, 10, "alloc", &named("a"));
        event(&mut b, 20, "alloc", &named("b"));
        event(&mut b, 30, "free", &named("a"));
        event(&mut b, 35, "free", &named("c"));
        let mut model = Model::default();
        model.info.duration_ns = 40;
        b.finish(&mut model);
        let o = &model.tracked;
        let spans: Vec<_> = (o.lifetimes.iter())
            .map(|l| (o.kind(l.kind), o.key(&l).to_string(), l.start_ns, l.end_ns))
            .collect();
        assert_eq!(
            spans,
            [
                ("buf", "a".to_string(), 10, 30),
                ("other", "a".to_string(), 10, 40),
                ("buf", "b".to_string(), 20, 40),
                ("other", "b".to_string(), 20, 40),
            ]
        );
        let details: Vec<_> = model.anomalies.iter().map(|a| a.detail.as_str()).collect();
        assert_eq!(
            details,
            ["free ended buf c, which had not begun (first of these)"]
        );
    }

    #[test]
    fn damage_is_counted_as_anomalies() {
        let rules = rules();
        let mut b = LifetimeBuilder::new(rules);
        event(&mut b, 5, "free", &[("buf", ArgValue::UInt(0xA))]);
        event(&mut b, 6, "free", &[("buf", ArgValue::UInt(0xB))]);
        alloc(&mut b, 10, 0xA, 3);
        alloc(&mut b, 20, 0xA, 2);
        event(&mut b, 25, "ref", &[("buf", ArgValue::UInt(0xA))]);
        event(
            &mut b,
            26,
            "ref",
            &[("buf", ArgValue::UInt(0xF)), ("count", ArgValue::UInt(1))],
        );
        let mut model = Model::default();
        model.info.duration_ns = 30;
        b.finish(&mut model);
        let found: Vec<_> = model
            .anomalies
            .iter()
            .map(|a| (a.kind, a.count, a.start_ns, a.end_ns, a.detail.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (AnomalyKind::EndWithoutBegin, 2, 5, 6, "free ended buf 0xa, which had not begun (first of these)"),
                (AnomalyKind::Inconsistent, 1, 20, 20, "alloc began buf 0xa while it was live; its earlier lifetime ends there, truncated (first of these)"),
                (AnomalyKind::Inconsistent, 1, 25, 25, "a mark rule names field `count`, which event ref does not have (or not as an integer); the rule skipped these events"),
                (AnomalyKind::Inconsistent, 1, 26, 26, "ref marked buf 0xf, which was not live (first of these)"),
            ]
        );
        let ends: Vec<_> = model
            .tracked
            .lifetimes
            .iter()
            .map(|l| (l.start_ns, l.end_ns, l.truncated))
            .collect();
        assert_eq!(ends, [(10, 20, true), (20, 30, true)]);
    }
}
